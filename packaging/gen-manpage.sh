#!/usr/bin/env bash
# Writes hookinbox(1) from the CLI's own help: help2man for the synopsis and
# global options, plus a COMMANDS section from each subcommand's --help.
#   packaging/gen-manpage.sh BINARY VERSION OUT.1
# Run by CMake at build time (add_custom_command); needs help2man (Debian package).
set -euo pipefail
bin="$1"; version="$2"; out="$3"
inc="$(mktemp)"; trap 'rm -f "$inc"' EXIT

# Every command as the CLI itself lists it ("Subcommands:" in --help), one
# level deep ("events list"), so a new verb reaches the man page unasked.
subcommands() {
  local parent="$1" sub
  # shellcheck disable=SC2086  # $parent is zero or one word
  for sub in $("$bin" $parent --help | awk '/^Subcommands:$/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'); do
    # shellcheck disable=SC2086
    if [ -z "$parent" ] && "$bin" $sub --help | grep -q '^Subcommands:$'; then subcommands "$sub"
    else echo "${parent:+$parent }$sub"; fi
  done
}
{
  echo '[COMMANDS]'
  while IFS= read -r sub; do
    echo ".SS \"hookinbox $sub\""
    # shellcheck disable=SC2086  # "events list" is two words on purpose
    help="$("$bin" $sub --help 2>&1)"
    sed -n -e '1s/^\([.'"'"']\)/\\\&\1/' -e '1p' <<<"$help"       # the one-line description
    echo '.nf'
    sed -e '1d' -e 's#^Usage: [^ ]*hookinbox#Usage: hookinbox#' -e '/-h,--help/d' \
        -e 's/^\([.'"'"']\)/\\\&\1/' <<<"$help" |
      awk '/^Options:$/ { held = $0; next } held != "" && NF { print held } { held = ""; print }'
    echo '.fi'
  done < <(subcommands "")
  cat <<'ROFF'
[FILES]
.TP
/etc/hookinbox/hookinbox.toml
the configuration (a conffile); every key: /usr/share/doc/hookinbox/README.md, "Configuration reference"
.TP
/etc/hookinbox/env
NAME=value lines for the *_env secret keys, read by the systemd unit (0600 root)
.TP
/var/lib/hookinbox
the database (data/), certificate (tls/) and generated secrets (secrets/); user hookinbox, 0700
[EXIT STATUS]
0 ok, 1 failure (including an invalid config or a busy port), 2 usage error.
[SEE ALSO]
/usr/share/doc/hookinbox/README.md, /usr/share/doc/hookinbox/providers.md
ROFF
} >"$inc"
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name='webhook inbox: receive over HTTPS, store each event once, process it once' \
  --include="$inc" "$bin" -o "$out"
