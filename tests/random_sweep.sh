#!/bin/sh
# random_sweep.sh [-j N] BUILD SEED... -- random mechanisms through the tools
# of BUILD, every error fatal (make test-san runs it on the ASan + UBSan build
# with a handful of seeds: make random-check; make random-sweep runs 300).
#
# For each seed, tests/data/random_mechanism.lua with SEED = seed (trees,
# rings, shattered hubs, every constraint type, inequality rows):
#   ldlgen  -o in float, double, tables and with 3 statements per function,
#           with --stats, --dot and --report, under halt_on_error=1;
#   gcc and clang compile every generated file with -Wall -Wextra
#           -Wpedantic -Werror (docs/DESIGN.md section 4);
#   random_check (tests/random_check.c, linked with the float and double
#           programs as each compiler built them) holds them to the
#           interpreter bit for bit and to the residual bound (1e-12 in
#           double) on random SPD matrices;
#   test_rt_batch (linked with ldlgen --batch N's float and double
#           programs, N 4, 8 or 16 by the seed, vector and plain C) holds
#           every copy of an rt_batch bit for bit to its world stepped alone;
#   ldlsim  steps the mechanism 30 times (--json, a CSV) and --check solves
#           its H~ no worse than ten times the dense solve's residual.
# The environment gives CC, CFLAGS (the build's, for random_check), LIBS
# and GEN_CHECK_FLAGS. Output goes to BUILD/random/SEED/.
set -eu

jobs=1
if [ "${1:-}" = -j ]; then jobs=$2; shift 2; fi
build=$1
shift

if [ "${RANDOM_SWEEP_ONE:-}" = 1 ]; then
  seed=$1
  d=$build/random/$seed
  rm -rf "$d"
  mkdir -p "$d"
  m=$d/random$seed.lua
  { echo "SEED = $seed"; cat tests/data/random_mechanism.lua; } > "$m"
  fail() { echo "random_sweep: seed $seed: $*" >&2; exit 1; }
  export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  "$build/ldlgen" "$m" -o "$d/f.c" --precision float --prefix rnd_float --stats --dot "$d/g.dot" \
    --report "$d/r.json" > "$d/stats.json" || fail "ldlgen -o float"
  "$build/ldlgen" "$m" -o "$d/d.c" --precision double --prefix rnd_double || fail "ldlgen -o double"
  "$build/ldlgen" "$m" -o "$d/t.c" --mode tables --prefix rnd_tables || fail "ldlgen --mode tables"
  "$build/ldlgen" "$m" -o "$d/b.c" --budget 3 --prefix rnd_budget || fail "ldlgen --budget 3"
  # gcc at -O1 (some warnings need its analysis) for the two programs the
  # check links, -O0 for the others and for clang: warnings, not speed
  for cc in gcc clang; do
    for f in f d t b; do
      opt=-O0
      if [ $cc = gcc ] && { [ $f = f ] || [ $f = d ]; }; then opt=-O1; fi
      $cc $GEN_CHECK_FLAGS $opt -c "$d/$f.c" -o "$d/$f.$cc.o" || fail "$cc does not compile $d/$f.c"
    done
    # the objects just compiled (no sanitizer: instrumenting generated code
    # costs seconds a file; test_generated holds seeds 1-6 under ASan)
    $CC $CFLAGS "$build/obj/tests/random_check.o" "$d/f.$cc.o" "$d/d.$cc.o" "$build/librt.a" $LIBS -o "$d/check_$cc"
    "$d/check_$cc" > "$d/check_$cc.log" 2>&1 ||
      { cat "$d/check_$cc.log" >&2; fail "$cc-compiled programs against the interpreter"; }
  done
  # the batch programs (ldlgen --batch N), in double and float, the lanes
  # by the seed (double 4, 8, 16 in turn, float 16, 4, 8), with the vector
  # extensions (-O1) and the plain-C fallback (-O0): every copy of an
  # rt_batch bitwise its world stepped alone with the scalar program above,
  # driven differently, with its own settings, one diverging (test_rt_batch,
  # linked with this seed's list)
  lanes_double=$(echo "4 8 16" | cut -d' ' -f$((seed % 3 + 1)))
  lanes_float=$(echo "16 4 8" | cut -d' ' -f$((seed % 3 + 1)))
  names=""
  for p in double float; do
    if [ $p = double ]; then N=$lanes_double; else N=$lanes_float; fi
    n=rnd_${p}_b$N
    names="$names $n"
    "$build/ldlgen" "$m" -o "$d/$n.c" --precision $p --batch $N --prefix $n || fail "ldlgen --batch $N --precision $p"
    gcc $GEN_CHECK_FLAGS -O1 -c "$d/$n.c" -o "$d/$n.o" || fail "gcc does not compile $d/$n.c"
    ren=""
    for sym in program desc settings create batch_factor batch_solve batch_solve_forward batch_solve_backward batch; do ren="$ren -D${n}_$sym=${n}_portable_$sym"; done
    gcc $GEN_CHECK_FLAGS -O0 -DRT_BATCH_PORTABLE $ren -c "$d/$n.c" -o "$d/${n}_portable.o" ||
      fail "gcc does not compile $d/$n.c with RT_BATCH_PORTABLE"
  done
  list=$d/batch_list.c
  sh tests/batch_list.sh $names > "$list"
  $CC $CFLAGS -Iruntime/include -Itests -c "$list" -o "$d/batch_list.o"
  $CC $CFLAGS "$build/obj/tests/test_rt_batch.o" "$d/batch_list.o" "$d"/rnd_double_b*.o "$d"/rnd_float_b*.o \
    "$d/d.gcc.o" "$d/f.gcc.o" "$build/librt.a" $LIBS -o "$d/check_batch"
  LDLPGS_TEST_SHORT=1 "$d/check_batch" > "$d/check_batch.log" 2>&1 ||
    { cat "$d/check_batch.log" >&2; fail "rt_batch's copies against their worlds stepped alone"; }
  "$build/ldlsim" "$m" --steps 30 --json --csv "$d/run.csv" > "$d/sim.json" || fail "ldlsim"
  "$build/ldlsim" "$m" --check > "$d/ldlcheck.json" || fail "ldlsim --check"
  awk -F'[:,]' '/"residual"/ { r = $2 } /"dense_residual"/ { q = $2 }
    END { if (!(r <= 10 * q + 1e-15)) { print "residual " r " against the dense " q; exit 1 } }' \
    "$d/ldlcheck.json" >&2 || fail "ldlsim --check residual"
  exit 0
fi

[ $# -gt 0 ] || { echo "usage: random_sweep.sh [-j N] BUILD SEED..." >&2; exit 2; }
for s in "$@"; do echo "$s"; done |
  RANDOM_SWEEP_ONE=1 xargs -P "$jobs" -I{} sh "$0" "$build" {}
echo "random mechanisms: $# seeds through $build/ldlgen, gcc, clang and $build/ldlsim"
