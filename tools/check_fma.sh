#!/bin/sh
# check_fma.sh JOBS OUTDIR FLAGS SOURCES... -- compiles every source at -O2
# and -O3 with the target flags FLAGS (one word-split string; and
# -ffp-contract=off, as every build), JOBS at a time, and fails, naming the
# file and the instructions, if any object holds a fused multiply-add.
#
# The code calls no fma() and contraction is off, so an FMA instruction is
# a fusion the flags should have prevented: gcc 12's SLP vectorizer fuses
# a*b - c and a*b + c in adjacent lanes into vfmsubadd/vfmaddsub whatever
# -ffp-contract says (the quaternion products of joint.c, bodies.c and
# stabilize.c), and ARCH=avx2's and avx512's results then left the portable
# build's by an ulp in the second step of the driven tank (make check-arch).
# The ARCH flags carry -fno-tree-slp-vectorize for it; this keeps them
# honest without running the code, so it works on any x86-64 host.
#
# check_fma.sh --one SRC OBJ FLAGS: one compile and its scan (xargs runs it).
set -eu
if [ "$1" = "--one" ]; then
  src=$2; obj=$3; flags=$4
  mkdir -p "$(dirname "$obj")"
  # shellcheck disable=SC2086
  ${CC:-cc} -std=c11 $flags -ffp-contract=off -pthread -Iruntime/include -Igen -Isim ${LUA_CFLAGS:-} -c "$src" -o "$obj"
  found=$(objdump -d --no-show-raw-insn "$obj" | awk '$2 ~ /^vf(n)?m(add|sub)/ {print $2}' | sort | uniq -c | tr -s ' \n' ' ')
  rm -f "$obj.bad"
  if [ -n "$found" ]; then echo "$src ($flags):$found" > "$obj.bad"; fi
  exit 0
fi
jobs=$1; out=$2; flags=$3; shift 3
rm -rf "$out"
mkdir -p "$out"
for src in "$@"; do
  for o in -O2 -O3; do printf '%s\n%s\n%s\n' "$src" "$out/${o#-}/${src%.c}.o" "$o $flags"; done
done | tr '\n' '\0' | xargs -0 -n 3 -P "$jobs" "$0" --one
bad=$(find "$out" -name '*.bad' -exec cat {} + | sort)
if [ -n "$bad" ]; then
  echo "$bad"
  echo "check-fma: fused multiply-adds above under -ffp-contract=off: results would differ from the portable build's"
  exit 1
fi
echo "check-fma: no fused multiply-add in $# sources at -O2 and -O3 with $flags"
