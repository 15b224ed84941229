#!/bin/sh
# install.sh install|uninstall DESTDIR MANIFEST -- installs what the Makefile
# lists on standard input and records it, or removes exactly what was
# recorded. MANIFEST is the installed path of the record (without DESTDIR).
#
# install reads one line per item, paths as installed (without DESTDIR):
#   file MODE SOURCE PATH     a copy of SOURCE at PATH with MODE
#   link TARGET PATH          a symbolic link PATH -> TARGET
# and records every file, link and directory it created (a directory that
# existed before is not recorded, one recorded by an earlier install stays
# recorded) in MANIFEST, which is itself recorded. uninstall removes the
# recorded files and links, then the recorded directories that are empty,
# deepest first: what the install added, nothing else.
set -eu
[ $# -eq 3 ] || { echo "usage: install.sh install|uninstall DESTDIR MANIFEST" >&2; exit 2; }
action=$1 destdir=$2 manifest=$3
rec="$destdir$manifest"

case $action in
install)
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT INT TERM
  # directories an earlier install created stay ours
  [ -f "$rec" ] && grep '^dir ' "$rec" >> "$tmp" || true
  # mkdirs PATH: creates PATH's missing directories, recording them
  mkdirs() {
    [ -d "$destdir$1" ] && return 0
    if [ "$1" = / ]; then mkdir -p "$destdir"; return 0; fi # DESTDIR is the packager's, not recorded
    mkdirs "$(dirname "$1")"
    mkdir "$destdir$1"
    grep -qxF "dir $1" "$tmp" || echo "dir $1" >> "$tmp"
  }
  while read -r kind a b c; do
    case $kind in
    file)
      mkdirs "$(dirname "$c")"
      install -m "$a" "$b" "$destdir$c"
      echo "file $c" >> "$tmp"
      echo "  $c" ;;
    link)
      mkdirs "$(dirname "$b")"
      ln -sfn "$a" "$destdir$b"
      echo "file $b" >> "$tmp"
      echo "  $b -> $a" ;;
    *) echo "install.sh: bad line: $kind $a $b $c" >&2; exit 1 ;;
    esac
  done
  mkdirs "$(dirname "$manifest")"
  echo "file $manifest" >> "$tmp"
  # files first (in order), then directories
  { grep '^file ' "$tmp" | awk '!seen[$0]++'; grep '^dir ' "$tmp" | awk '!seen[$0]++'; } > "$tmp.sorted"
  install -m 644 "$tmp.sorted" "$rec"
  rm -f "$tmp.sorted"
  echo "installed $(grep -c '^file ' "$rec") files (manifest: $manifest)" ;;
uninstall)
  [ -f "$rec" ] || { echo "install.sh: nothing to uninstall: no $rec" >&2; exit 1; }
  list=$(cat "$rec") # the record lists itself
  n=$(printf '%s\n' "$list" | grep -c '^file ' || true)
  printf '%s\n' "$list" | grep '^file ' | while read -r _ p; do rm -f "$destdir$p"; echo "  removed $p"; done
  # deepest first; a directory that is not empty (something else was put there) stays
  printf '%s\n' "$list" | grep '^dir ' | cut -c5- | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2- |
    while read -r d; do if rmdir "$destdir$d" 2>/dev/null; then echo "  removed $d/"; fi; done
  echo "uninstalled $n files" ;;
*) echo "install.sh: unknown action $action" >&2; exit 2 ;;
esac
