"""A project's own WebAuthn test against the passkeyd its CI started (docs/ci-example.yml):
python-fido2 as the browser, passkeyd as the authenticator, python-fido2's server verifying."""

import os

from fido2.client import DefaultClientDataCollector, Fido2Client, UserInteraction
from fido2.server import Fido2Server
from fido2.webauthn import PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity

import passkeyd_fido2


class NoPIN(UserInteraction):
    """passkeyd approves presence itself; nobody types a PIN in CI."""

    def request_pin(self, permissions, rp_id):
        return None


def test_register_and_sign_in():
    device = passkeyd_fido2.open_device()  # the default socket, as passkeyd --detach chose it
    try:
        client = Fido2Client(device, client_data_collector=DefaultClientDataCollector("https://example.com"),
                             user_interaction=NoPIN())
        server = Fido2Server(PublicKeyCredentialRpEntity(id="example.com", name="Example"))
        user = PublicKeyCredentialUserEntity(id=os.urandom(16), name="ci")
        options, state = server.register_begin(user, resident_key_requirement="required")
        credential = server.register_complete(state, client.make_credential(options.public_key))
        options, state = server.authenticate_begin([credential.credential_data])
        response = client.get_assertion(options.public_key).get_response(0)
        server.authenticate_complete(state, [credential.credential_data], response)
    finally:
        device.close()
