#!/bin/sh
# /etc/letsencrypt/renewal-hooks/deploy/hookinbox — certbot runs it as root
# after each issue or renewal, with RENEWED_LINEAGE=/etc/letsencrypt/live/<name>.
# certbot's private keys are root-only, and the service runs as user
# hookinbox under ProtectSystem=strict, so the pair is copied into the state
# directory (key 0600, owned by hookinbox) and the service told to reload:
# SIGHUP swaps the certificate without closing the listener, and refuses
# (keeping the old one, logging why) an expired or mismatched pair.
# Config:  tls_cert = "/var/lib/hookinbox/tls/cert.pem"
#          tls_key  = "/var/lib/hookinbox/tls/key.pem"
set -e
[ -n "$RENEWED_LINEAGE" ] || { echo "RENEWED_LINEAGE is not set (run by certbot)" >&2; exit 1; }
dir=/var/lib/hookinbox/tls
install -d -m 0700 -o hookinbox -g hookinbox "$dir"
# Write both beside, then rename: the service never reads a half-written file.
install -m 0644 -o hookinbox -g hookinbox "$RENEWED_LINEAGE/fullchain.pem" "$dir/.cert.pem.new"
install -m 0600 -o hookinbox -g hookinbox "$RENEWED_LINEAGE/privkey.pem" "$dir/.key.pem.new"
mv -f "$dir/.key.pem.new" "$dir/key.pem"
mv -f "$dir/.cert.pem.new" "$dir/cert.pem"
systemctl reload hookinbox.service
