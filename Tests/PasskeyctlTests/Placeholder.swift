// Test target PasskeyctlTests.
