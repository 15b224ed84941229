#!/bin/sh
# compile_check.sh JOBS OUTDIR FILE... -- compiles each generated FILE
# standalone, JOBS files at a time: with gcc and clang at -O2, its plain-C
# branch (no vector types) with gcc -DLDLPGS_NO_VECTOR, and with tcc. The
# flags come from the environment: FLAGS (gcc and clang, e.g. -std=c11
# -Werror -Iruntime/include) and TCC (the tcc command). Prints every
# failing compiler's output and exits 1 naming the files that failed.
set -eu
jobs=$1
out=$2
shift 2
mkdir -p "$out"
rm -f "$out"/*.failed
export out
for f in "$@"; do printf '%s\n' "$f"; done |
  xargs -P "$jobs" -I '{}' sh -c '
    f=$1; n=$(basename "$f" .c); o=$out/$n
    { gcc $FLAGS -O2 -c "$f" -o "$o.gcc.o" &&
      clang $FLAGS -O2 -c "$f" -o "$o.clang.o" &&
      gcc $FLAGS -DLDLPGS_NO_VECTOR -fsyntax-only "$f" &&
      $TCC -std=c11 -Wall -Werror -Iruntime/include -c "$f" -o "$o.tcc.o"; } > "$o.log" 2>&1 ||
      { cat "$o.log"; touch "$o.failed"; }' sh '{}'
failed=$(cd "$out" && ls *.failed 2>/dev/null | sed 's/\.failed$//' | tr '\n' ' ')
if [ -n "$failed" ]; then
  echo "compile_check: failed: $failed" >&2
  exit 1
fi
