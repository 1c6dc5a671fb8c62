# Sourced by the GPU scripts. Header-only build dependencies the GPU machine may
# lack arrive as Debian packages in .deps/ (scripts/fetch-gpu-deps.sh; .deps is
# git-ignored, so the device tool must carry it). Sets COOP_DEPS_PREFIX when used.
if [[ ! -f /usr/include/nlohmann/json.hpp ]]; then
  if ! compgen -G ".deps/*.deb" >/dev/null; then
    echo "nlohmann/json.hpp is missing and .deps/ holds no packages: run scripts/fetch-gpu-deps.sh, carry .deps" >&2
    exit 1
  fi
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/coop-deps; done
  export COOP_DEPS_PREFIX=/tmp/coop-deps/usr
fi
