#!/bin/sh
# make remembers that its package check passed: once the build folder has
# been built, "make deps" has nothing to do (the check took up to 1.6 s on
# every call), and it checks again when the Makefile changes (issue 35, item 9).
set -eu
. "$(dirname "$0")/lib.inc"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
command -v make >/dev/null 2>&1 || { echo "skip: no make"; exit 77; }
[ -f "$top/$build/.deps-build" ] || fail "no $build/.deps-build after a build"

plan=$(make -C "$top" -n BUILD="$build" deps 2>&1)
case $plan in *missing=*) fail "make deps checks the packages again: $plan" ;; esac

# a Makefile taken as changed (-W): the check runs again (make -n only says so)
plan=$(make -C "$top" -n BUILD="$build" -W Makefile deps 2>&1)
case $plan in *missing=*) ;; *) fail "a changed Makefile does not check again: $plan" ;; esac
echo ok
