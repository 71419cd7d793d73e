#!/bin/sh
# Makes sure the test suite's libraries are installed: Criterion and jansson
# (Debian's libcriterion-dev, libjansson-dev). Installs them as root, else
# says the exact command to run. Extra packages may be named as arguments.
pkgs="libcriterion-dev libjansson-dev $*"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "ptkit tests need:$missing" >&2
    echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing
