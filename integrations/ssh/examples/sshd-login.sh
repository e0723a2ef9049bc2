#!/bin/sh
# A CI check that an sshd accepts a FIDO security key, on a runner with no FIDO hardware:
# passkeyd is the key and libpasskeyd-sk.so the provider that OpenSSH loads.
# Needs passkeyd on PATH, openssh-client and openssh-server; runs as any user (as root, sshd
# needs /run/sshd, which this makes). Settings: SK_PROVIDER (default ~/.local/lib/libpasskeyd-sk.so,
# where `make install` puts it), SSHD_PORT (default 2222).
set -eu
provider=${SK_PROVIDER:-$HOME/.local/lib/libpasskeyd-sk.so}
port=${SSHD_PORT:-2222}
work=$(mktemp -d)
stop() {
	for pid in "$work/sshd.pid" "$work/passkeyd.pid"; do [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null; done
	rm -rf "$work"
}
trap stop EXIT

# The authenticator: presence approved at once, keys kept in this run's folder.
export PASSKEYD_SOCKET="$work/passkeyd/ctaphid.sock"
passkeyd --detach --socket "$PASSKEYD_SOCKET" --data-dir "$work/keys" --presence auto --pid-file "$work/passkeyd.pid"

# A security key, as a user makes one.
ssh-keygen -q -t ed25519-sk -w "$provider" -f "$work/id" -N ''

# The server under test (here a throw-away sshd; point ssh at yours instead).
ssh-keygen -q -t ed25519 -N '' -f "$work/host"
cp "$work/id.pub" "$work/authorized_keys"
if [ "$(id -u)" = 0 ]; then mkdir -p /run/sshd; fi
/usr/sbin/sshd -f /dev/null -o "ListenAddress=127.0.0.1:$port" -o "HostKey=$work/host" \
	-o "AuthorizedKeysFile=$work/authorized_keys" -o "PidFile=$work/sshd.pid" -o StrictModes=no -o UsePAM=no \
	-o PasswordAuthentication=no -o KbdInteractiveAuthentication=no -o PermitRootLogin=prohibit-password
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$work/host.pub")" > "$work/known_hosts"
tries=0
until ssh-keyscan -T 5 -p "$port" 127.0.0.1 >/dev/null 2>&1; do
	tries=$((tries + 1))
	if [ "$tries" -ge 300 ]; then echo "sshd did not start on port $port" >&2; exit 1; fi
	sleep 0.1
done

# The login: ssh signs the server's challenge with the key in passkeyd.
ssh -F /dev/null -p "$port" -i "$work/id" -o "SecurityKeyProvider=$provider" -o IdentitiesOnly=yes \
	-o IdentityAgent=none -o "UserKnownHostsFile=$work/known_hosts" -o BatchMode=yes \
	"$(id -un)@127.0.0.1" 'echo "logged in as $(id -un) with a passkeyd security key"'
