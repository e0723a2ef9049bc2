// Test target WebAuthnTests.
