#!/bin/sh
# scale.sh BUILD OUT.md -- the scaling table of `make bench` (and of make
# bench-scale alone): ldlgen on mechanisms of growing size, written from the
# Lua files of bench/scale/ (and mechanisms/track.lua) with their size set:
#
#   hinge chains   bench/scale/hinge_chain.lua, LINKS   (no fill: a path)
#   tracks         mechanisms/track.lua, PLATES         (a ring: fill to one node)
#   grids          bench/scale/grid.lua, SIDE x SIDE    (2-D: fill grows as n log n)
#   road trains    bench/scale/train.lua, CARS          (a heavy body per cart: shattering)
#
# For each: `ldlgen --stats` (wall time, peak memory from GNU time, rows,
# flops), then `ldlgen -o` (wall time, size of the C file) and gcc -O2 -c
# of it (CPU time) while the C file stays under SCALE_MAX_COMPILE_KB (a
# larger file is a build-time cost no game pays per frame; its row says
# "-"). Every figure is one run on a shared machine: read the growth, not
# the digits. Prints the Markdown table and writes it to OUT.md.
set -eu

build=$1
out=$2
work=$build/scale
mkdir -p "$work"
max_compile_kb=${SCALE_MAX_COMPILE_KB:-3000}
cc=${CC:-cc}
time_bin=/usr/bin/time
[ -x $time_bin ] || { echo "scale.sh: needs GNU time ($time_bin)" >&2; exit 1; }

row() { # series size global source
  series=$1 n=$2 var=$3 src=$4
  m=$work/${series}$n.lua
  { echo "$var = $n"; cat "$src"; } > "$m"
  $time_bin -f "%e %M" -o "$work/t.stats" "$build/ldlgen" "$m" --stats > "$work/s.json" 2> "$work/err" || {
    printf '| %s | %s | - | - | - | %s | | | |\n' "$series" "$n" "$(head -c 120 "$work/err")"
    return
  }
  read -r st sm < "$work/t.stats"
  dim=$(awk -F'[:,]' '/^  "dim"/ { gsub(/ /, "", $2); print $2 }' "$work/s.json")
  flops=$(awk -F'[:,]' '/^  "flops"/ { gsub(/ /, "", $2); print $2 }' "$work/s.json")
  rsi=$(awk -F'[:,]' '/^  "rsi_entries"/ { gsub(/ /, "", $2); print $2 }' "$work/s.json")
  ot="-" kb="-" ct="-"
  if $time_bin -f "%e" -o "$work/t.emit" "$build/ldlgen" "$m" -o "$work/p.c" --precision double 2> "$work/err"; then
    ot=$(cat "$work/t.emit")
    kb=$(( $(wc -c < "$work/p.c") / 1024 ))
    if [ "$kb" -le "$max_compile_kb" ]; then
      $time_bin -f "%U %S" -o "$work/t.cc" $cc -std=c11 -O2 -ffp-contract=off -Iruntime/include -c "$work/p.c" \
        -o "$work/p.o"
      ct=$(awk '{ printf "%.1f", $1 + $2 }' "$work/t.cc")
    fi
  else
    ot="refused: $(sed 's/.*error: //' "$work/err" | head -c 90)"
  fi
  printf '| %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s |\n' "$series" "$n" "$dim" "$flops" "$rsi" \
    "$(echo "$sm" | awk '{ print $1 / 1024 }')" "$st" "$ot" "$kb" "$ct"
  rm -f "$work/p.c" "$work/p.h" "$work/p.o"
}

{
  echo "Growth of ldlgen with the size of a mechanism (\`bench/scale.sh\`; $(uname -m), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), sources $(git rev-parse --short HEAD 2>/dev/null || echo unknown))."
  echo "\`--stats\` is the whole symbolic phase (load, shattering, orderings, layout, RSI); \`-o\` adds the emission of the double unrolled program; compile is gcc -O2 CPU time (\"-\": not compiled, over ${max_compile_kb} KB)."
  echo
  echo "| series | n | rows | flops | RSI entries | peak MiB (--stats) | --stats s | -o s | C KB | compile s |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  for n in 1000 2000 4000 8000 16000; do row hinge_chain $n LINKS bench/scale/hinge_chain.lua; done
  for n in 1000 5000 20000; do row track $n PLATES mechanisms/track.lua; done
  for n in 10 20 40 80; do row grid $n SIDE bench/scale/grid.lua; done
  for n in 10 100 1000; do row train $n CARS bench/scale/train.lua; done
} > "$work/table.md"
cat "$work/table.md"
cp "$work/table.md" "$out"
