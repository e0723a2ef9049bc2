"""python-fido2's CredentialManagement against the real daemon (CTAP 2.1 §6.8), cross-checked
with `passkeyctl list --json`.

Each test starts a daemon with `--uv off`, sets a PIN, and registers discoverable
credentials through python-fido2's client on the PIN path: several RPs, several
users, ES256 and EdDSA, plus one non-discoverable credential that credential
management must not show.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin
from fido2.server import Fido2Server
from fido2.utils import sha256

from conftest import make_client
from passkeyd_pin import (
    PIN,
    PROTOCOL_IDS,
    PROTOCOLS,
    RESULT,
    PinInteraction,
    b64url,
    credman,
    fido2_view,
    passkeyctl,
    passkeyctl_binary,
    passkeyctl_has,
    passkeyctl_view,
)

ERR = CtapError.ERR
PERM = ClientPin.PERMISSION
ES256, EDDSA = -7, -8

#: (rp id, rp name, user name, display name, algorithm)
ACCOUNTS = [
    ("alpha.example.com", "Alpha", "alice", "Alice Liddell", ES256),
    ("alpha.example.com", "Alpha", "bob", "Bob Builder", EDDSA),
    ("beta.example.com", "Beta", "carol", "Carol Danvers", ES256),
    ("gamma.example.com", "Gamma", "dave", "Dave Lister", ES256),
    ("gamma.example.com", "Gamma", "erin", "Erin Brockovich", EDDSA),
]

needs_passkeyctl_list = pytest.mark.skipif(
    not passkeyctl_has("list"),
    reason=f"{passkeyctl_binary()} has no `list` subcommand yet (branch ctl not merged into main)",
)


@dataclass
class Account:
    rp_id: str
    rp_name: str
    user: dict
    credential: object  # fido2.webauthn.AttestedCredentialData

    @property
    def credential_id(self) -> bytes:
        return self.credential.credential_id

    @property
    def descriptor(self) -> dict:
        return {"type": "public-key", "id": self.credential_id}


@dataclass
class Populated:
    socket: str
    dev: object
    accounts: list[Account]
    non_resident: Account
    remaining_before: int

    def expected_view(self, accounts: list[Account] | None = None) -> dict:
        view: dict[str, dict] = {}
        for a in self.accounts if accounts is None else accounts:
            view.setdefault(a.rp_id, {})[b64url(a.credential_id)] = {
                "userHandle": b64url(a.user["id"]),
                "userName": a.user["name"],
                "displayName": a.user["displayName"],
            }
        return view

    def account(self, name: str) -> Account:
        return next(a for a in self.accounts if a.user["name"] == name)


def register(dev, rp_id, rp_name, name, display_name, alg, resident=True) -> Account:
    server = Fido2Server({"id": rp_id, "name": rp_name})
    user = {"id": os.urandom(16), "name": name, "displayName": display_name}
    options, state = server.register_begin(
        user, resident_key_requirement="required" if resident else "discouraged", user_verification="required"
    )
    public_key = {**dict(options.public_key), "pubKeyCredParams": [{"type": "public-key", "alg": alg}]}
    interaction = PinInteraction()
    result = make_client(dev, f"https://{rp_id}", interaction).make_credential(public_key)
    auth_data = server.register_complete(state, result)
    assert auth_data.is_user_verified() and interaction.pin_requests, "registration did not take the PIN path"
    return Account(rp_id, rp_name, user, auth_data.credential_data)


@pytest.fixture
def populated(daemon_factory) -> Populated:
    d = daemon_factory("--presence", "auto", "--uv", "off")
    dev = d.device()
    ClientPin(Ctap2(dev)).set_pin(PIN)
    metadata = credman(dev).get_metadata()
    assert metadata[RESULT.EXISTING_CRED_COUNT] == 0
    remaining = metadata[RESULT.MAX_REMAINING_COUNT]
    accounts = [register(dev, *a) for a in ACCOUNTS]
    non_resident = register(dev, "alpha.example.com", "Alpha", "nora", "Nora Nonresident", ES256, resident=False)
    yield Populated(d.socket, dev, accounts, non_resident, remaining)
    dev.close()


@pytest.fixture(params=PROTOCOLS, ids=PROTOCOL_IDS)
def protocol(request):
    return request.param


def ctap_error(code: ERR):
    return pytest.raises(CtapError, match=code.name)


def test_metadata_counts_discoverable_credentials(populated, protocol):
    metadata = credman(populated.dev, protocol).get_metadata()
    # §6.8.2: only discoverable credentials count; the non-resident one is not stored.
    assert metadata[RESULT.EXISTING_CRED_COUNT] == len(ACCOUNTS)
    assert metadata[RESULT.MAX_REMAINING_COUNT] == populated.remaining_before - len(ACCOUNTS)
    # getInfo's remainingDiscoverableCredentials (0x14) agrees.
    assert Ctap2(populated.dev).get_info().remaining_disc_creds == metadata[RESULT.MAX_REMAINING_COUNT]


def test_enumeration_matches_what_was_registered(populated, protocol):
    cm = credman(populated.dev, protocol)
    rps = cm.enumerate_rps()
    assert sorted(r[RESULT.RP]["id"] for r in rps) == ["alpha.example.com", "beta.example.com", "gamma.example.com"]
    names = {r[RESULT.RP]["id"]: r[RESULT.RP].get("name") for r in rps}
    assert names == {"alpha.example.com": "Alpha", "beta.example.com": "Beta", "gamma.example.com": "Gamma"}
    assert fido2_view(cm) == populated.expected_view()

    # Each credential carries its public key (§6.8.4 publicKey) and credProtect level.
    for account in populated.accounts:
        creds = cm.enumerate_creds(sha256(account.rp_id.encode()))
        [mine] = [c for c in creds if c[RESULT.CREDENTIAL_ID]["id"] == account.credential_id]
        assert mine[RESULT.PUBLIC_KEY] == account.credential.public_key
        assert mine[RESULT.CREDENTIAL_ID]["type"] == "public-key"
        assert mine.get(RESULT.CRED_PROTECT, 1) in (1, 2, 3)
    assert all(b64url(populated.non_resident.credential_id) not in v for v in fido2_view(cm).values())

    # An RP with no discoverable credential: enumerateCredentialsBegin answers NO_CREDENTIALS.
    with ctap_error(ERR.NO_CREDENTIALS):
        cm.enumerate_creds_begin(sha256(b"nobody.example.com"))


def test_delete_credential(populated, protocol):
    cm = credman(populated.dev, protocol)
    bob, carol = populated.account("bob"), populated.account("carol")
    cm.delete_cred(bob.descriptor)
    remaining = [a for a in populated.accounts if a is not bob]
    assert fido2_view(cm) == populated.expected_view(remaining)
    assert cm.get_metadata()[RESULT.EXISTING_CRED_COUNT] == len(remaining)

    # Deleting an RP's last credential removes the RP from enumerateRPs.
    cm.delete_cred(carol.descriptor)
    remaining.remove(carol)
    assert "beta.example.com" not in {r[RESULT.RP]["id"] for r in cm.enumerate_rps()}
    assert fido2_view(cm) == populated.expected_view(remaining)
    assert cm.get_metadata()[RESULT.MAX_REMAINING_COUNT] == populated.remaining_before - len(remaining)

    # Gone means gone: a second delete, and an assertion that names it.
    with ctap_error(ERR.NO_CREDENTIALS):
        cm.delete_cred(bob.descriptor)
    token = ClientPin(Ctap2(populated.dev), protocol()).get_pin_token(PIN, PERM.GET_ASSERTION, bob.rp_id)
    cdh = os.urandom(32)
    with ctap_error(ERR.NO_CREDENTIALS):
        Ctap2(populated.dev).get_assertion(bob.rp_id, cdh, [bob.descriptor],
                                           pin_uv_param=protocol().authenticate(token, cdh),
                                           pin_uv_protocol=protocol.VERSION)

    # alice still signs for alpha, and discoverable assertion there finds only her.
    server = Fido2Server({"id": "alpha.example.com", "name": "Alpha"})
    request, state = server.authenticate_begin(user_verification="required")
    response = make_client(populated.dev, "https://alpha.example.com", PinInteraction()).get_assertion(request.public_key)
    assertions = response.get_assertions()
    assert [a.credential["id"] for a in assertions] == [populated.account("alice").credential_id]
    server.authenticate_complete(state, [populated.account("alice").credential], response.get_response(0))


def test_update_user_information(populated, protocol):
    cm = credman(populated.dev, protocol)
    dave = populated.account("dave")
    new_user = {"id": dave.user["id"], "name": "dave@gamma.example.com", "displayName": "David Lister"}
    cm.update_user_info(dave.descriptor, new_user)
    dave.user = new_user
    assert fido2_view(cm) == populated.expected_view()

    # The new names reach an assertion (§6.2.2: user details with UV and several accounts).
    server = Fido2Server({"id": "gamma.example.com", "name": "Gamma"})
    request, _ = server.authenticate_begin(user_verification="required")
    response = make_client(populated.dev, "https://gamma.example.com", PinInteraction()).get_assertion(request.public_key)
    users = {a.user["id"]: a.user for a in response.get_assertions()}
    assert users[dave.user["id"]].get("name") == "dave@gamma.example.com"
    assert users[dave.user["id"]].get("displayName") == "David Lister"

    # §6.8.6: the user id must be the stored one.
    cm = credman(populated.dev, protocol)
    with ctap_error(ERR.INVALID_PARAMETER):
        cm.update_user_info(dave.descriptor, {"id": os.urandom(16), "name": "mallory"})
    assert fido2_view(cm) == populated.expected_view()


def test_token_permissions_are_enforced(populated, protocol):
    dev = populated.dev
    # No cm permission: every subcommand that needs a token refuses it (§6.8 step 3).
    cm = credman(dev, protocol, permissions=PERM.MAKE_CREDENTIAL | PERM.GET_ASSERTION, rp_id="alpha.example.com")
    with ctap_error(ERR.PIN_AUTH_INVALID):
        cm.get_metadata()
    with ctap_error(ERR.PIN_AUTH_INVALID):
        cm.enumerate_rps()

    # cm bound to alpha: its credentials only; no metadata, no RP list, nothing of beta's.
    alpha = sha256(b"alpha.example.com")
    cm = credman(dev, protocol, rp_id="alpha.example.com")
    assert len(cm.enumerate_creds(alpha)) == 2
    with ctap_error(ERR.PIN_AUTH_INVALID):
        cm.get_metadata()
    with ctap_error(ERR.PIN_AUTH_INVALID):
        cm.enumerate_rps()
    with ctap_error(ERR.PIN_AUTH_INVALID):
        cm.enumerate_creds(sha256(b"beta.example.com"))
    with ctap_error(ERR.PIN_AUTH_INVALID):
        cm.delete_cred(populated.account("carol").descriptor)
    assert fido2_view(credman(dev, protocol)) == populated.expected_view()


@needs_passkeyctl_list
def test_passkeyctl_list_shows_what_credential_management_enumerates(populated):
    fido2 = fido2_view(credman(populated.dev))
    assert passkeyctl_view(populated.socket) == fido2 == populated.expected_view()


@needs_passkeyctl_list
def test_python_fido2_deletes_what_passkeyctl_lists(populated, protocol):
    listed = passkeyctl_view(populated.socket)
    # Pick bob's credential by the names passkeyctl shows, and delete it by the ID it prints.
    [(bob_id, _)] = [(cid, c) for cid, c in listed["alpha.example.com"].items() if c["userName"] == "bob"]
    cm = credman(populated.dev, protocol)
    bob = populated.account("bob")
    assert bob_id == b64url(bob.credential_id)
    cm.delete_cred({"type": "public-key", "id": bob.credential_id})
    remaining = [a for a in populated.accounts if a is not bob]
    assert fido2_view(cm) == populated.expected_view(remaining)
    # passkeyctl's own token replaces ours (one pinUvAuthToken at a time, CTAP 2.1 §6.5.5.7).
    assert passkeyctl_view(populated.socket) == populated.expected_view(remaining)

    # And the other way: an update through python-fido2 shows in passkeyctl.
    erin = populated.account("erin")
    erin.user = {"id": erin.user["id"], "name": "erin@gamma", "displayName": "Erin B."}
    credman(populated.dev, protocol).update_user_info(erin.descriptor, erin.user)
    assert passkeyctl_view(populated.socket) == populated.expected_view(remaining)


@needs_passkeyctl_list
def test_passkeyctl_list_needs_the_pin(populated):
    result = passkeyctl(populated.socket, "list", "--json", pin="0000")
    assert result.returncode == 3, f"want passkeyctl's wrong-PIN exit status 3:\n{result.stdout}\n{result.stderr}"
    # The wrong PIN reached the authenticator and cost one retry; the right one restores them.
    assert ClientPin(Ctap2(populated.dev)).get_pin_retries()[0] == 7
    assert credman(populated.dev).get_metadata()[RESULT.EXISTING_CRED_COUNT] == len(ACCOUNTS)
    assert ClientPin(Ctap2(populated.dev)).get_pin_retries()[0] == 8


@pytest.mark.skipif(not passkeyctl_has("delete"),
                    reason=f"{passkeyctl_binary()} has no `delete` subcommand yet (branch ctl not merged into main)")
def test_passkeyctl_delete_shows_in_python_fido2(populated):
    erin = populated.account("erin")
    result = passkeyctl(populated.socket, "delete", "--yes", b64url(erin.credential_id))
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    remaining = [a for a in populated.accounts if a is not erin]
    cm = credman(populated.dev)
    assert fido2_view(cm) == populated.expected_view(remaining)
    assert cm.get_metadata()[RESULT.EXISTING_CRED_COUNT] == len(remaining)
