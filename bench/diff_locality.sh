#!/bin/sh
# diff_locality.sh OUT.md LABEL=LDLGEN... -- for every sample, the share of
# the generated lines (OUT.c and OUT.h together) that each small edit of the
# mechanism changes, once per generator given (e.g. before=old/ldlgen
# after=build/ldlgen; kept="build/ldlgen --keep-order": gen_run below).
# Edits (bench/diff_locality.lua): rename one body,
# rename one equality constraint, swap two adjacent equality constraints,
# swap two adjacent bodies, double one mass, add one body with a ball joint
# at the end, the same in the middle, remove one joint, remove one body
# with the one joint that holds it (the inverse of adding one). A
# changed line is counted once: per file max(lines removed, lines added) by
# diff(1), over the unedited output's lines.
set -eu
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
edits="rename rename_constraint swap swap_bodies mass add_end add_middle remove remove_part"

wrap() { # sample edit > file
  printf 'local EDIT = "%s"\nlocal m = (function()\n' "$2"
  cat "$root/mechanisms/$1.lua"
  printf '\nend)()\n'
  cat "$here/diff_locality.lua"
  printf '\nreturn m\n'
}
# gen_bin, gen_run: how a generator runs ("LDLGEN --keep-order" keeps the
# unedited output's order; with "--mechanism-out" the cells count the
# program's files, and the mechanism's after a "+")
. "$here/generators.sh"
count() { # dirA dirB base: changed lines of base.c and base.h, total lines of A's
  c=0; t=0
  for ext in c h; do
    a=$1/$3.$ext; b=$2/$3.$ext
    del=$(diff "$a" "$b" | grep -c '^<' || true)
    ins=$(diff "$a" "$b" | grep -c '^>' || true)
    c=$((c + (del > ins ? del : ins))); t=$((t + $(wc -l < "$a")))
  done
  echo "$c $t"
}
changed() { # dirA dirB: changed lines and total lines of the program's files, then the mechanism's changed lines if apart
  if [ -f "$1/x_mech.c" ]; then echo "$(count "$1" "$2" x) $(count "$1" "$2" x_mech | cut -d' ' -f1)"; else count "$1" "$2" x; fi
}

{
  echo "# Locality of generated code: lines changed by small edits"
  echo
  echo "Share of the generated lines (\`.c\` and \`.h\` together) that each edit of the mechanism"
  echo "changes (\`bench/diff_locality.sh\`; a changed line counted once, per file the larger of"
  echo "the lines diff(1) removes and adds, over the unedited output). Edits: rename one body"
  echo "(the middle one, and its references), rename one equality constraint (the middle one,"
  echo "and its references), swap two adjacent equality constraints, swap two adjacent bodies"
  echo "(the middle ones), double one mass, add one body with a ball joint at the end, the same"
  echo "in the middle, remove one joint, remove one body with the one joint that holds it (the"
  echo "nearest to the middle that nothing else names: the inverse of adding one). Generators:"
  echo
  for g in "$@"; do echo "- \`${g%%=*}\`: \`${g#*=}\`"; done
  echo
  printf '| sample | lines |'
  for e in $edits; do printf ' %s |' "$e"; done; echo
  printf '|---|--:|'
  for e in $edits; do printf -- '--:|'; done; echo
  for m in "$root"/mechanisms/*.lua; do
    s=$(basename "$m" .lua)
    lines=""
    seen=""
    row=""
    for e in $edits; do
      cell=""
      for g in "$@"; do
        label=${g%%=*}; gen=${g#*=}
        d=$work/$label/$s; mkdir -p "$d/none" "$d/$e"
        if [ ! -f "$d/none/x.c" ] && [ ! -f "$d/none/failed" ]; then
          wrap "$s" none > "$d/none.lua"
          mkdir -p "$d/fresh"
          { $(gen_bin "$gen") "$d/none.lua" -o "$d/fresh/x.c" &&
            gen_run "$gen" "$d/none.lua" "$d/none/x.c" "$d/fresh/x.c"; } 2>/dev/null || : > "$d/none/failed"
        fi
        wrap "$s" "$e" > "$d/$e.lua"
        if [ -f "$d/none/failed" ] || ! gen_run "$gen" "$d/$e.lua" "$d/$e/x.c" "$d/none/x.c" 2>/dev/null; then
          # a generator older than the sample's constraint types
          case " $seen " in *" $label "*) ;; *) seen="$seen $label"; lines="$lines${lines:+ / }n/a";; esac
          cell="$cell${cell:+ / }n/a"
          continue
        fi
        r=$(changed "$d/none" "$d/$e"); set -- $r "$@"; c=$1; t=$2; shift 2
        mech=""; case "$r" in *" "*" "*) mech=" + $1"; shift ;; esac
        case " $seen " in *" $label "*) ;; *) seen="$seen $label"; lines="$lines${lines:+ / }$t";; esac
        pct=$(awk -v c="$c" -v t="$t" 'BEGIN { printf "%.1f", 100 * c / t }')
        cell="$cell${cell:+ / }$pct % ($c$mech)"
      done
      row="$row $cell |"
    done
    echo "| $s | $lines |$row"
  done
  echo
  echo "A generator ending in \`--keep-order\` regenerates each edit with the pivot order of the"
  echo "unedited output kept (\`ldlgen --keep-order OLD.c\`, taken when it costs no more flops than the"
  echo "fresh order; the unedited output is itself regenerated so once, as in a repository that always"
  echo "regenerates with it)."
  echo
  echo "A generator ending in \`--mechanism-out\` writes the mechanism part (descriptions, settings,"
  echo "enums) to files of its own (\`ldlgen --mechanism-out\`): its percent and lines are the program's"
  echo "files', and after a + the lines changed in the mechanism's files."
  echo
  echo "Cells: percent of lines (changed lines), one per generator in the order listed; lines:"
  echo "the unedited output's, per generator; n/a: the generator predates the sample's constraint"
  echo "types, or (remove_part) no body of the sample is held by one joint alone (a closed loop)."
  echo "The generators' outputs differ in size (the kernels left the generated files for"
  echo "rt_kernels.h), so compare the changed lines too."
} > "$out"
echo "wrote $out"
