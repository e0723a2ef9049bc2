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

    /// The list's lines as its format reads them, whichever line ending a copy has: each rule up
    /// to its first whitespace, lowercased, and a rule beyond ASCII in the ASCII form hosts come in.
    @Test func listLinesAreReadUpToWhitespaceWhateverTheirEndingsAndCase() {
        let list = PublicSuffixList(
            listText:
                "// header\r\nCOM\r\n  org.example\tfirst.example\r\nnet.example // trailing.example\rio\u{0B}dev\u{0C}"
                + "*.KAWASAKI.JP\n!City.Kawasaki.JP\nÉCOLE.fr comment.fr\n香港\u{2028}ΕΛ.example\u{00A0}after.example\n\n"
        )
        for suffix in [
            "com", "org.example", "net.example", "io", "dev", "xn--cole-9oa.fr", "xn--j6w193g", "xn--qxam.example"
        ] {
            #expect(list.isPublicSuffix(suffix), "\(suffix)")
        }
        for word in ["first.example", "trailing.example", "comment.fr", "after.example"] {
            #expect(!list.isPublicSuffix(word), "only a line's first token is its rule: \(word)")
        }
        #expect(list.publicSuffix(of: "a.b.kawasaki.jp") == "b.kawasaki.jp", "wildcard, lowercased")
        #expect(list.publicSuffix(of: "city.kawasaki.jp") == "kawasaki.jp", "exception, lowercased")
    }

    /// Debian's whole list, as the host reads it: a sample of each kind of rule.
    @Test func debiansListKnowsItsRulesOfEachKind() throws {
        let list = try #require(PublicSuffixList.system())
        #expect(list.isPublicSuffix("co.uk"))
        #expect(list.isPublicSuffix("github.io"), "the private section applies")
        #expect(list.publicSuffix(of: "a.b.kawasaki.jp") == "b.kawasaki.jp", "wildcard")
        #expect(list.publicSuffix(of: "www.city.kawasaki.jp") == "kawasaki.jp", "exception")
        #expect(list.isPublicSuffix("xn--55qx5d.cn"), "公司.cn, a rule outside ASCII, as an origin's host spells it")
        #expect(!list.isPublicSuffix("example.com"))
    }

    /// A page under an IDN public suffix cannot claim the suffix itself as its RP ID, however
    /// it spells it (Chromium: SecurityError): before, the list's Unicode rules were filed as
    /// written, never matched the ASCII host, and `公司.cn` passed as a registrable domain.
    @Test(arguments: ["公司.cn", "xn--55qx5d.cn", "公司.CN"])
    func anIDNPublicSuffixIsNoRPID(rpID: String) throws {
        let origin = try Origin("https://shop.公司.cn")
        #expect(origin.host == "shop.xn--55qx5d.cn")
        do {
            _ = try Self.policy.validate(rpID: rpID, origin: origin)
            Issue.record("\(rpID) was accepted for \(origin)")
        } catch {
            #expect(error.name == .security)
            #expect(error.message == "The relying party ID xn--55qx5d.cn is a public suffix.")
        }
        #expect(try Self.policy.validate(rpID: "shop.公司.cn", origin: origin) == "shop.xn--55qx5d.cn")
    }

    @Test func rpIDMayBeTheHostOrARegistrableSuffix() throws {
        let origin = try Origin("https://login.example.co.uk")
        #expect(try Self.policy.validate(rpID: nil, origin: origin) == "login.example.co.uk")
        #expect(try Self.policy.validate(rpID: "login.example.co.uk", origin: origin) == "login.example.co.uk")
        #expect(try Self.policy.validate(rpID: "example.co.uk", origin: origin) == "example.co.uk")
    }

    @Test(arguments: [
        ("https://login.example.co.uk", "co.uk"),  // public suffix (ICANN section)
        ("https://alice.github.io", "github.io"),  // public suffix (private section)
        ("https://example.com", "other.com"),  // unrelated
        ("https://example.com", "login.example.com"),  // more specific than the origin
        ("https://notexample.com", "example.com"),  // suffix but not at a label boundary
        ("https://127.0.0.1", "127.0.0.1"),  // IP addresses are not RP IDs
        ("https://login.example.co.uk.", "co.uk."),  // a trailing dot names the same public suffix
        ("https://alice.github.io.", "github.io."),  // so one github.io. site cannot claim another's
        ("https://127.0.0.1.", "127.0.0.1.")  // the same address
    ])
    func forbiddenPairsAreSecurityErrors(origin: String, rpID: String) throws {
        #expect(throws: WebAuthnError.self) { try Self.policy.validate(rpID: rpID, origin: try Origin(origin)) }
        do {
            _ = try Self.policy.validate(rpID: rpID, origin: try Origin(origin))
        } catch {
            #expect(error.name == .security)
        }
    }

    /// http://127.0.0.1 is a secure context (Secure Contexts §3.1), so what refuses it is the RP ID:
    /// an IP address is no domain (issue 40 item 7; Chromium: SecurityError), not "not a secure context".
    @Test(arguments: ["http://127.0.0.1:8080", "http://127.1.2.3", "http://[::1]:3000", "https://192.0.2.7"])
    func anIPAddressOriginIsRefusedForItsRPIDNotItsScheme(origin: String) throws {
        let parsed = try Origin(origin)
        for rpID in [nil, parsed.host, "localhost"] {
            do {
                _ = try Self.policy.validate(rpID: rpID, origin: parsed)
                Issue.record("\(origin) with \(rpID ?? "no RP ID") was accepted")
            } catch {
                #expect(error.name == .security)
                #expect(error.message.hasPrefix("An IP address (\(parsed.host)) cannot be a relying party ID"))
            }
        }
    }

    @Test func plainHTTPToAnotherAddressIsStillNotASecureContext() {
        #expect(throws: WebAuthnError.self) { try Origin("http://192.0.2.7") }
        #expect(throws: WebAuthnError.self) { try Origin("http://example.com") }
    }

    @Test func fullyQualifiedNamesKeepTheirTrailingDotAndStayUsable() throws {
        let origin = try Origin("https://login.example.co.uk.")
        #expect(try Self.policy.validate(rpID: "example.co.uk.", origin: origin) == "example.co.uk.")
        #expect(try Self.policy.validate(rpID: nil, origin: origin) == "login.example.co.uk.")
        #expect(throws: WebAuthnError.self) { try Self.policy.validate(rpID: "example.co.uk", origin: origin) }
    }

    /// RFC 3492 §7.1's sample strings, and browsers' serialization of an IDN origin (URL Standard §3.5).
    @Test func unicodeHostsAreSerializedInASCIIAsBrowsersDo() throws {
        #expect(Punycode.encode("bücher") == "bcher-kva")
        #expect(
            Punycode.encode("\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}")
                == "ihqwcrb4cv8a8dqg056pqjye")
        #expect(Punycode.encode("3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}") == "3B-ww4c5e180e575a65lsy2b")
        let origin = try Origin("https://Bücher.example:8443")
        #expect(origin.description == "https://xn--bcher-kva.example:8443")
        #expect(try Self.policy.validate(rpID: "bücher.example", origin: origin) == "xn--bcher-kva.example")
        #expect(try Origin("https://bücher.example/path?q").host == "xn--bcher-kva.example")
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
