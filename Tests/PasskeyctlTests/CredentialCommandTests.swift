import CTAP
import Foundation
import PasskeyClient
import PasskeydTestSupport
import Testing
import WebAuthn

/// `list`, `delete` and `rename` against a real daemon.
@Suite struct CredentialCommandTests {
    static let pin = "4242"

    /// Three credentials on two RPs, then a PIN.
    static func populated(_ daemon: PasskeydProcess) async throws -> (alice: [UInt8], bob: [UInt8], carol: [UInt8]) {
        let alice = try await daemon.register(rp: "example.com", user: "alice")
        let bob = try await daemon.register(rp: "example.com", user: "bob")
        let carol = try await daemon.register(rp: "other.org", user: "carol")
        let set = try await daemon.ctl(["pin", "set"], newPIN: pin)
        #expect(set.status == 0, "\(set.stderr)")
        return (alice, bob, carol)
    }

    @Test func listGroupsEveryCredentialByRelyingParty() async throws {
        try await withDaemon { daemon in
            let ids = try await Self.populated(daemon)
            let run = try await daemon.ctl(["list", "--json"], pin: Self.pin)
            #expect(run.status == 0)
            let groups = try #require(try run.json["relyingParties"] as? [[String: Any]])
            #expect(groups.map { $0["id"] as? String } == ["example.com", "other.org"])
            let exampleCredentials = try #require(groups[0]["credentials"] as? [[String: Any]])
            #expect(Set(exampleCredentials.compactMap { $0["userName"] as? String }) == ["alice", "bob"])
            let alice = try #require(exampleCredentials.first { $0["userName"] as? String == "alice" })
            #expect(alice["credentialId"] as? String == Base64URL.encode(ids.alice))
            #expect(alice["userHandle"] as? String == Base64URL.encode(Array("id-alice".utf8)))
            #expect(alice["displayName"] as? String == "Alice")
            #expect(alice["algorithm"] as? String == "ES256")
            #expect(alice["protection"] as? String == "userVerificationOptional")
            #expect(alice["createdAt"] is NSNull)

            let filtered = try await daemon.ctl(["list", "--rp", "other.org", "--json"], pin: Self.pin)
            let only = try #require(try filtered.json["relyingParties"] as? [[String: Any]])
            #expect(only.count == 1)
            #expect(
                (only.first?["credentials"] as? [[String: Any]])?.first?["credentialId"] as? String
                    == Base64URL.encode(ids.carol))

            // The table names every RP and user, and shows IDs by a prefix.
            let table = try await daemon.ctl(["list"], pin: Self.pin)
            #expect(table.status == 0)
            for text in [
                "example.com", "other.org", "alice", "bob", "carol", String(Base64URL.encode(ids.bob).prefix(12))
            ] {
                #expect(table.stdout.contains(text), "table lacks \(text): \(table.stdout)")
            }

            let info = try await daemon.ctl(["info", "--json"], pin: Self.pin)
            #expect((try info.json["credentials"] as? [String: Any])?["stored"] as? Int == 3)
        }
    }

    @Test func anEmptyAuthenticatorListsNothing() async throws {
        try await withDaemon { daemon in
            #expect(try await daemon.ctl(["pin", "set"], newPIN: Self.pin).status == 0)
            // enumerateRPsBegin answers CTAP2_ERR_NO_CREDENTIALS: an empty list, not an error.
            let run = try await daemon.ctl(["list", "--json"], pin: Self.pin)
            #expect(run.status == 0)
            #expect((try run.json["relyingParties"] as? [Any])?.isEmpty == true)
            #expect(try await daemon.ctl(["list"], pin: Self.pin).stdout.contains("No discoverable credentials"))
            #expect(try await daemon.ctl(["delete", "--rp", "example.com", "--yes"], pin: Self.pin).status == 5)
        }
    }

    @Test func managementWithoutThePINIsRefusedPlainly() async throws {
        try await withDaemon { daemon in
            try await daemon.register(rp: "example.com", user: "alice")
            // No PIN set and no built-in UV: the person is told to set a PIN.
            let noPIN = try await daemon.ctl(["list"])
            #expect(noPIN.status == 8)
            #expect(noPIN.stderr.contains("passkeyctl pin set"))
            #expect(try await daemon.ctl(["pin", "set"], newPIN: Self.pin).status == 0)
            // PIN set, none given, no terminal to ask on: a usage error naming the ways to give it.
            let missing = try await daemon.ctl(["list", "--json"])
            #expect(missing.status == 1)
            #expect((try missing.json["error"] as? [String: Any])?["kind"] as? String == "usage")
            #expect(missing.stdout.contains("PASSKEYCTL_PIN"))
        }
    }

    @Test func builtInUserVerificationStandsInForAMissingPIN() async throws {
        try await withDaemon(["--uv", "auto"]) { daemon in
            let id = try await daemon.register(rp: "example.com", user: "alice", uv: true)
            let listed = try await daemon.listed(pin: nil)
            #expect(listed.map { $0["credentialId"] as? String } == [Base64URL.encode(id)])
        }
    }

    @Test func deleteByUniquePrefixLeavesTheOthers() async throws {
        try await withDaemon { daemon in
            let ids = try await Self.populated(daemon)
            let bob = Base64URL.encode(ids.bob)
            let prefix = String(
                bob.prefix(uniquePrefixLength(bob, among: [ids.alice, ids.carol].map { Base64URL.encode($0) })))
            // Without --yes and without a terminal, nothing happens.
            let unconfirmed = try await daemon.ctl(["delete", "--", prefix], pin: Self.pin)
            #expect(unconfirmed.status == 1)
            #expect(try await daemon.listed(pin: Self.pin).count == 3)

            let run = try await daemon.ctl(["delete", "--yes", "--json", "--", prefix], pin: Self.pin)
            #expect(run.status == 0, "\(run.stderr)")
            #expect((try run.json["deleted"] as? [[String: Any]])?.map { $0["credentialId"] as? String } == [bob])
            let left = try await daemon.listed(pin: Self.pin).compactMap { $0["credentialId"] as? String }
            #expect(Set(left) == [Base64URL.encode(ids.alice), Base64URL.encode(ids.carol)])

            let missing = try await daemon.ctl(["delete", "--yes", "--", bob], pin: Self.pin)
            #expect(missing.status == 5)
            // A name that begins with "-" (base64url allows it) is a credential name, not an unknown option.
            let dashed = try await daemon.ctl(["delete", "--yes", "--json", "-" + bob.dropFirst()], pin: Self.pin)
            #expect(dashed.status == 5)
            #expect((try dashed.json["error"] as? [String: Any])?["kind"] as? String == "not-found")
        }
    }

    @Test func ambiguousPrefixListsTheMatchesAndDeletesNothing() async throws {
        try await withDaemon { daemon in
            // Random 32-byte IDs: register until two share their first base64url character and a
            // third starts differently (60 IDs leave about one chance in 10^7 of falling short).
            var byFirst: [Character: String] = [:]
            var pair: (String, String)?
            var all: [String] = []
            while pair == nil || byFirst.count < 2, all.count < 60 {
                let id = Base64URL.encode(try await daemon.register(rp: "example.com", user: "user\(all.count)"))
                all.append(id)
                if let earlier = byFirst[id.first!] { pair = pair ?? (earlier, id) } else { byFirst[id.first!] = id }
            }
            let count = all.count
            let (first, second) = try #require(pair)
            #expect(try await daemon.ctl(["pin", "set"], newPIN: Self.pin).status == 0)
            let shared = commonPrefix(first, second)
            let run = try await daemon.ctl(["delete", "--yes", "--json", "--", shared], pin: Self.pin)
            #expect(run.status == 5)
            let error = try #require(try run.json["error"] as? [String: Any])
            #expect(error["kind"] as? String == "ambiguous")
            let matches = try #require(error["matches"] as? [String])
            let sharing = all.filter { $0.hasPrefix(shared) }
            #expect(sharing.count >= 2 && matches.count == sharing.count)
            #expect(matches.contains { $0.hasPrefix(first) } && matches.contains { $0.hasPrefix(second) })
            #expect(try await daemon.listed(pin: Self.pin).count == count)

            // An ambiguous name among several stops the whole command, even the unique ones.
            let unique = try #require(byFirst.values.first { $0 != first })
            let mixed = try await daemon.ctl(["delete", "--yes", "--", unique, shared], pin: Self.pin)
            #expect(mixed.status == 5)
            #expect(mixed.stderr.contains(first) && mixed.stderr.contains(second))
            #expect(try await daemon.listed(pin: Self.pin).count == count)

            // A longer prefix settles it ("--" because a base64url ID may begin with "-").
            let others = all.filter { $0 != second }
            let longer = try #require(
                (shared.count + 1...second.count).lazy.map { String(second.prefix($0)) }
                    .first { prefix in !others.contains { $0.hasPrefix(prefix) } })
            #expect(try await daemon.ctl(["delete", "--yes", "--", longer], pin: Self.pin).status == 0)
            let left = try await daemon.listed(pin: Self.pin).compactMap { $0["credentialId"] as? String }
            #expect(left.count == count - 1 && !left.contains(second) && left.contains(first))
        }
    }

    @Test func deleteByRelyingPartyAndUser() async throws {
        try await withDaemon { daemon in
            let ids = try await Self.populated(daemon)
            #expect(
                try await daemon.ctl(["delete", "--rp", "example.com", "--user", "nobody", "--yes"], pin: Self.pin)
                    .status == 5)
            #expect(
                try await daemon.ctl(["delete", "--rp", "example.com", "--user", "alice", "--yes"], pin: Self.pin)
                    .status == 0)
            var left = try await daemon.listed(pin: Self.pin).compactMap { $0["credentialId"] as? String }
            #expect(Set(left) == [Base64URL.encode(ids.bob), Base64URL.encode(ids.carol)])
            #expect(try await daemon.ctl(["delete", "--rp", "example.com", "--yes"], pin: Self.pin).status == 0)
            left = try await daemon.listed(pin: Self.pin).compactMap { $0["credentialId"] as? String }
            #expect(left == [Base64URL.encode(ids.carol)])
        }
    }

    @Test func renameUpdatesNamesAndKeepsTheUserHandle() async throws {
        try await withDaemon { daemon in
            let ids = try await Self.populated(daemon)
            let carol = Base64URL.encode(ids.carol)
            let run = try await daemon.ctl(
                ["rename", "--name", "caroline", "--display-name", "Caroline C.", "--", String(carol.prefix(10))],
                pin: Self.pin)
            #expect(run.status == 0, "\(run.stderr)")

            // The daemon itself now reports the new names, read through PasskeyClient's own session.
            let credentials = try await daemon.withSession { session in
                let info = try await session.getInfo()
                let token = try await ClientPINSession(session: session, info: info)
                    .tokenUsingPIN(Self.pin, permissions: .cm, rpID: nil)
                return try await CredentialManagementSession(session: session, token: token, info: info).credentials(
                    rpID: "other.org")
            }
            #expect(credentials.count == 1)
            #expect(
                credentials.first?.user
                    == PublicKeyCredentialUserEntity(
                        id: Array("id-carol".utf8), name: "caroline", displayName: "Caroline C."))

            // Only the display name: the user name stays.
            #expect(try await daemon.ctl(["rename", "--display-name", "CC", "--", carol], pin: Self.pin).status == 0)
            let listed = try #require(
                try await daemon.listed(pin: Self.pin).first { $0["credentialId"] as? String == carol })
            #expect(listed["userName"] as? String == "caroline")
            #expect(listed["displayName"] as? String == "CC")
        }
    }
}

/// The longest common prefix of two strings.
func commonPrefix(_ a: String, _ b: String) -> String {
    String(zip(a, b).prefix { $0 == $1 }.map(\.0))
}

/// How many leading characters of `id` no other ID shares.
func uniquePrefixLength(_ id: String, among others: [String]) -> Int {
    (others.map { commonPrefix(id, $0).count }.max() ?? 0) + 1
}
