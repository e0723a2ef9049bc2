#!/usr/bin/env python3
"""Checks that py_webauthn 3.0.1 accepts the options and responses passkeyd's Swift WebAuthn types produce.

    mkdir -p /tmp/wa-export
    PASSKEYD_WEBAUTHN_EXPORT=/tmp/wa-export swift test --filter ExportTests
    /tmp/wavenv/bin/python Fixtures/webauthn/verify_swift_responses.py /tmp/wa-export/swift_*.json
"""
import json
import sys

from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import (
    base64url_to_bytes,
    parse_authentication_credential_json,
    parse_authentication_options_json,
    parse_registration_credential_json,
    parse_registration_options_json,
)

for path in sys.argv[1:]:
    with open(path) as f:
        export = json.load(f)
    reg_options = parse_registration_options_json(export["registrationOptions"])
    auth_options = parse_authentication_options_json(export["authenticationOptions"])
    assert reg_options.challenge == base64url_to_bytes(export["registrationChallenge"])
    assert reg_options.authenticator_selection.user_verification.value == "required"
    assert auth_options.allow_credentials[0].id == base64url_to_bytes(export["authenticationResponse"]["rawId"])
    parse_registration_credential_json(export["registrationResponse"])
    parse_authentication_credential_json(export["authenticationResponse"])
    registration = verify_registration_response(
        credential=export["registrationResponse"],
        expected_challenge=base64url_to_bytes(export["registrationChallenge"]),
        expected_rp_id=export["rpId"], expected_origin=export["origin"], require_user_verification=True,
    )
    authentication = verify_authentication_response(
        credential=export["authenticationResponse"],
        expected_challenge=base64url_to_bytes(export["authenticationChallenge"]),
        expected_rp_id=export["rpId"], expected_origin=export["origin"],
        credential_public_key=registration.credential_public_key,
        credential_current_sign_count=registration.sign_count, require_user_verification=True,
    )
    print(f"{path}: registration fmt={registration.fmt} ok, authentication new_sign_count={authentication.new_sign_count} ok")
