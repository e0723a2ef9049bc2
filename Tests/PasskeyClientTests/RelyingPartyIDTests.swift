import Testing
@testable import PasskeyClient

@Suite struct RelyingPartyIDTests {
    static let policy: RelyingPartyIDPolicy = {
        guard let list = PublicSuffixList.system() else {
            fatalError("the public suffix list is missing: `make deps` installs Debian's publicsuffix")
        }
        return RelyingPartyIDPolicy(publicSuffixes: list)
    }()

    @Test func publicSuffixAlgorithmHandlesWildcardsAndExceptions() {
        let list = PublicSuffixList(listText: "// comment\ncom\nuk\nco.uk\n*.ck\n!www.ck\n")
        #expect(list.publicSuffix(of: "www.example.co.uk") == "co.uk")
        #expect(list.publicSuffix(of: "example.com") == "com")
        #expect(list.publicSuffix(of: "a.b.ck") == "b.ck", "wildcard")
        #expect(list.publicSuffix(of: "www.ck") == "ck", "exception")
        #expect(list.publicSuffix(of: "example.unlisted") == "unlisted", "default rule *")
        #expect(list.isPublicSuffix("co.uk"))
        #expect(!list.isPublicSuffix("example.co.uk"))
    }

    @Test func rpIDMayBeTheHostOrARegistrableSuffix() throws {
        let origin = try Origin("https://login.example.co.uk")
        #expect(try Self.policy.validate(rpID: nil, origin: origin) == "login.example.co.uk")
        #expect(try Self.policy.validate(rpID: "login.example.co.uk", origin: origin) == "login.example.co.uk")
        #expect(try Self.policy.validate(rpID: "example.co.uk", origin: origin) == "example.co.uk")
    }

    @Test(arguments: [
        ("https://login.example.co.uk", "co.uk"),          // public suffix (ICANN section)
        ("https://alice.github.io", "github.io"),          // public suffix (private section)
        ("https://example.com", "other.com"),              // unrelated
        ("https://example.com", "login.example.com"),      // more specific than the origin
        ("https://notexample.com", "example.com"),         // suffix but not at a label boundary
        ("https://127.0.0.1", "127.0.0.1"),                // IP addresses are not RP IDs
    ])
    func forbiddenPairsAreSecurityErrors(origin: String, rpID: String) throws {
        #expect(throws: WebAuthnError.self) { try Self.policy.validate(rpID: rpID, origin: try Origin(origin)) }
        do {
            _ = try Self.policy.validate(rpID: rpID, origin: try Origin(origin))
        } catch {
            #expect(error.name == .security)
        }
    }

    @Test func onlySecureContextsAreOrigins() throws {
        #expect(throws: WebAuthnError.self) { try Origin("http://example.com") }
        #expect(throws: WebAuthnError.self) { try Origin("ftp://example.com") }
        #expect(throws: WebAuthnError.self) { try Origin("not an origin") }
        #expect(try Origin("http://localhost:8080").description == "http://localhost:8080")
        #expect(try Origin("https://Example.COM:443").description == "https://example.com")
        #expect(try Origin("https://example.com:8443").description == "https://example.com:8443")
    }
}
