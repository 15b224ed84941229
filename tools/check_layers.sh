#!/bin/sh
# check_layers.sh BUILD -- the layering the design promises, checked on the
# object files (docs/DESIGN.md section 1):
#   - the runtime references no symbol of gen/, sim/ or Lua;
#   - gen/ references nothing of sim/;
#   - no two runtime files call each other, directly or round a circle
#     (step.c sequences the stages; a stage never calls back).
# Exit 0 when all hold; otherwise prints what breaks them and exits 1.
set -eu
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# defs: "symbol file" for every global definition in the objects of a room.
# A file is named by its path under the room, without .o (joints/ball).
# One nm for all of a room's objects (-A names each line's object: nm run
# per object took 16 of this check's 17 s on a fresh clone).
objs() { (cd "$build/obj/$1" && find . -name '*.o' | sed 's|^\./||' | sort); }
defs() { (cd "$build/obj/$1" && nm -A -g --defined-only $(find . -name '*.o' | sed 's|^\./||' | sort)) |
  awk 'NF == 3 { f = $1; sub(/\.o:.*$/, "", f); print $3, f }'; }
# uses: "file symbol" for every undefined reference.
uses() { (cd "$build/obj/$1" && nm -A -u $(find . -name '*.o' | sed 's|^\./||' | sort)) |
  awk '{ f = $1; sub(/\.o:.*$/, "", f); print f, $NF }'; }

for room in runtime gen sim; do
  [ -n "$(objs $room 2>/dev/null)" ] || { echo "check_layers: no objects in $build/obj/$room (build first)"; exit 1; }
  defs $room | sort > "$tmp/defs.$room"
  uses $room | sort -k2 > "$tmp/uses.$room"
done

status=0
# What a room references from a room it must not depend on.
forbid() { # room other
  join -1 2 -2 1 -o 1.1,1.2 "$tmp/uses.$1" "$tmp/defs.$2" | while read -r f s; do
    echo "check_layers: $1/$f.c uses $s from $2/"; done > "$tmp/bad"
  if [ -s "$tmp/bad" ]; then cat "$tmp/bad"; return 1; fi
}
forbid runtime gen || status=1
forbid runtime sim || status=1
forbid gen sim || status=1
if awk '$2 ~ /^lua/' "$tmp/uses.runtime" | grep -q .; then
  awk '$2 ~ /^lua/ { print "check_layers: runtime/" $1 ".c uses " $2 " (Lua)" }' "$tmp/uses.runtime"; status=1
fi

# The runtime's call graph between files: "caller callee" pairs.
join -1 2 -2 1 -o 1.1,2.2 "$tmp/uses.runtime" "$tmp/defs.runtime" | awk '$1 != $2' | sort -u > "$tmp/edges"
if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loop"; then
  echo "check_layers: runtime files call each other in a circle:"; cat "$tmp/loop"
  echo "check_layers: calls between runtime files (caller callee):"; cat "$tmp/edges"
  status=1
fi
[ $status -eq 0 ] && echo "layers hold: runtime uses neither gen/, sim/ nor Lua; gen/ does not use sim/; no circle of calls between runtime files ($(wc -l < "$tmp/edges") calls between $(objs runtime | wc -l) files)"
exit $status
