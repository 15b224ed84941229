# generators.sh -- sourced by bench/diff_locality.sh and bench/rename_sweep.sh:
# running a generator given as "LDLGEN [--keep-order] [--mechanism-out]".
#
# A generator given as "LDLGEN --keep-order" regenerates with the pivot
# order of the unedited output kept (ldlgen --keep-order): the unedited
# output itself is the plain one regenerated so once, as in a repository
# whose generated files are always regenerated with --keep-order.
# A generator ending in "--mechanism-out" (after --keep-order, if any) writes
# the mechanism part to x_mech.c and x_mech.h (ldlgen --mechanism-out).

gen_bin() { echo "${1%% --*}"; }
gen_run() { # gen input output baseline
  set -- "$1" "$2" "$3" "$4" ""
  case "$1" in *" --mechanism-out") set -- "$1" "$2" "$3" "$4" "--mechanism-out ${3%.c}_mech.c" ;; esac
  case "$1" in
    *" --keep-order"*) $(gen_bin "$1") "$2" -o "$3" --keep-order "$4" $5 ;;
    *) $(gen_bin "$1") "$2" -o "$3" $5 ;;
  esac
}
