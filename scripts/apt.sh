# Sourced by the ensure-*.sh scripts: install a Debian package with apt-get when this shell may.
# apt_install NAME PACKAGE CONSEQUENCE: installs PACKAGE; when it cannot (no apt-get, not root and no
# password-less sudo, or the install fails) it says so, naming CONSEQUENCE, and returns 1. Never exits.
apt_install() {
  local name="$1" package="$2" consequence="$3" sudo=""
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-$name: $package missing and apt-get unavailable; $consequence"
    return 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=sudo
    else
      echo "ensure-$name: $package missing and not root (install it: apt-get install $package); $consequence"
      return 1
    fi
  fi
  echo "ensure-$name: installing Debian package '$package'"
  if $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null; then
    return 0
  fi
  echo "ensure-$name: could not install $package; $consequence"
  return 1
}
