#!/bin/sh
# Install what archcheck needs to build and test, when it is missing (Debian/Ubuntu).
# As root it runs apt-get; otherwise it prints the exact command to run.
set -u
# libsundials-dev: CVODE, the transient's integrator (doc/libraries.md; it pulls in MPI,
# PETSc and hypre as Debian dependencies: about 140 packages on a bare machine);
# libsuitesparse-dev: KLU's header (klu.h), which sunlinsol_klu.h includes.
pkgs="build-essential pkg-config libxml2-dev libgsl-dev libcmocka-dev libhpdf-dev \
libsundials-dev libsuitesparse-dev \
fonts-dejavu-core fonts-nanum poppler-utils libxml2-utils valgrind"
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "archcheck needs:$missing (Debian package names); install them with your package manager." >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "archcheck needs these Debian packages:$missing" >&2
    echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || exit 1
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >&2 || exit 1
