import CBOR
import CTAP
import Crypto
import Testing

@testable import Authenticator

@Suite struct CredentialManagementTests {
    static let rpA = PublicKeyCredentialRpEntity(id: "a.example", name: "A")
    static let rpB = PublicKeyCredentialRpEntity(id: "b.example", name: "B")
    static let rpC = PublicKeyCredentialRpEntity(id: "c.example", name: "C")

    /// A PIN-protected device holding credentials: two for A, one each for B and C.
    static func populated(_ version: PinUvAuthProtocolVersion, capacity: Int = 10) async throws -> (
        Harness, PlatformPIN, [String: [UInt8]]
    ) {
        let h = Harness(capacity: capacity)
        let platform = PlatformPIN(h, version)
        try #require(try await platform.setPIN("1234") == .success)
        var ids: [String: [UInt8]] = [:]
        for (rp, user) in [(rpB, 1), (rpA, 1), (rpC, 1), (rpA, 2)] as [(PublicKeyCredentialRpEntity, UInt8)] {
            let token = try await platform.grantedToken(pin: "1234", permissions: .mc)
            let response = try await h.makeCredential(platform.makeCredential(token, rp: rp, user: Fixture.user(user)))
            let authData = try AuthenticatorData(bytes: response.attestation.authenticatorData)
            ids["\(rp.id)/\(user)"] = try #require(authData.attestedCredentialData).credentialID
        }
        return (h, platform, ids)
    }

    static func send(_ h: Harness, _ request: CredentialManagementRequest, command: CTAPCommand = .credentialManagement)
        async throws -> (CTAPStatus, CredentialManagementResponse?)
    {
        let (status, body) = try await h.send(command, request.cbor)
        return (status, try body.map { try CredentialManagementResponse(cbor: $0) })
    }

    static func next(_ h: Harness, _ subCommand: CredentialManagementSubcommand) async throws -> (
        CTAPStatus, CredentialManagementResponse?
    ) {
        try await send(h, CredentialManagementRequest(subCommand: subCommand))
    }

    static func hash(_ rpID: String) -> [UInt8] { Array(SHA256.hash(data: Array(rpID.utf8))) }

    @Test(arguments: bothProtocols)
    func metadataCountsWhatIsStoredAndWhatRoomIsLeft(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, _) = try await Self.populated(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let (status, response) = try await Self.send(h, platform.credentialManagement(.getCredsMetadata, token: token))
        #expect(status == .success)
        #expect(response?.existingResidentCredentialsCount == 4)
        #expect(response?.maxPossibleRemainingResidentCredentialsCount == 6)
        #expect(try await platform.info().remainingDiscoverableCredentials == 6)
    }

    @Test(arguments: bothProtocols)
    func relyingPartiesAreEnumeratedInOrderThenTheStateEnds(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, _) = try await Self.populated(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let (status, first) = try await Self.send(h, platform.credentialManagement(.enumerateRPsBegin, token: token))
        #expect(status == .success)
        #expect(first?.totalRPs == 3)
        var seen = [try #require(first?.rp)]
        #expect(first?.rpIDHash == Self.hash(Self.rpA.id))
        for _ in 1..<3 {
            let (nextStatus, next) = try await Self.next(h, .enumerateRPsGetNextRP)
            #expect(nextStatus == .success)
            #expect(next?.totalRPs == nil, "totalRPs only in the first answer")
            let rp = try #require(next?.rp)
            #expect(next?.rpIDHash == Self.hash(rp.id))
            seen.append(rp)
        }
        #expect(seen == [Self.rpA, Self.rpB, Self.rpC])
        #expect(try await Self.next(h, .enumerateRPsGetNextRP).0 == .notAllowed)
    }

    @Test(arguments: bothProtocols)
    func credentialsOfAnRPAreEnumeratedWithTheirPublicKeys(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, ids) = try await Self.populated(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let params = CredentialManagementParameters(rpIDHash: Self.hash(Self.rpA.id))
        let (status, first) = try await Self.send(
            h, platform.credentialManagement(.enumerateCredentialsBegin, params, token: token))
        #expect(status == .success)
        #expect(first?.totalCredentials == 2)
        let (nextStatus, second) = try await Self.next(h, .enumerateCredentialsGetNextCredential)
        #expect(nextStatus == .success)
        #expect(second?.totalCredentials == nil)
        let found = [first, second].compactMap { $0 }
        #expect(
            Set(found.compactMap { $0.credentialID?.id })
                == Set([ids["a.example/1"], ids["a.example/2"]].compactMap { $0 }))
        #expect(
            found.allSatisfy { $0.credentialID?.type == "public-key" && $0.credProtect == 1 && $0.largeBlobKey == nil })
        #expect(found.compactMap { $0.user?.name }.sorted() == ["user1@example.com", "user2@example.com"])
        #expect(try await Self.next(h, .enumerateCredentialsGetNextCredential).0 == .notAllowed)

        // The reported key verifies the credential's assertions.
        let assertToken = try await platform.grantedToken(pin: "1234", permissions: .ga)
        var request = platform.getAssertion(assertToken, rpID: Self.rpA.id)
        request.allowList = [PublicKeyCredentialDescriptor(id: try #require(first?.credentialID?.id))]
        let assertion = try await h.getAssertion(request)
        #expect(
            try verify(
                signature: assertion.signature, over: assertion.authenticatorData + Fixture.clientDataHash,
                with: try #require(first?.publicKey)))
    }

    @Test(arguments: bothProtocols)
    func deleteRemovesTheCredentialForGood(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, ids) = try await Self.populated(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let params = CredentialManagementParameters(
            credentialID: PublicKeyCredentialDescriptor(id: try #require(ids["b.example/1"])))
        #expect(
            try await Self.send(h, platform.credentialManagement(.deleteCredential, params, token: token)).0 == .success
        )
        #expect(await h.store.count() == 3)
        #expect(try await h.status(of: .getAssertion, Fixture.getAssertion(rpID: Self.rpB.id).cbor) == .noCredentials)
        #expect(
            try await Self.send(h, platform.credentialManagement(.deleteCredential, params, token: token)).0
                == .noCredentials)
        let (_, metadata) = try await Self.send(h, platform.credentialManagement(.getCredsMetadata, token: token))
        #expect(metadata?.existingResidentCredentialsCount == 3)
        #expect(metadata?.maxPossibleRemainingResidentCredentialsCount == 7)
    }

    @Test(arguments: bothProtocols)
    func updateUserInformationReplacesNamesButNotTheHandle(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, ids) = try await Self.populated(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let id = PublicKeyCredentialDescriptor(id: try #require(ids["c.example/1"]))
        let renamed = PublicKeyCredentialUserEntity(
            id: Fixture.user(1).id, name: "new@example.com", displayName: "New Name")
        let update = CredentialManagementParameters(credentialID: id, user: renamed)
        #expect(
            try await Self.send(h, platform.credentialManagement(.updateUserInformation, update, token: token)).0
                == .success)
        #expect(await h.store.credential(id: id.id)?.user == renamed)
        // §6.8.7: an empty name or display name is removed, not stored empty.
        let emptied = PublicKeyCredentialUserEntity(id: renamed.id, name: "", displayName: "")
        #expect(
            try await Self.send(
                h,
                platform.credentialManagement(
                    .updateUserInformation,
                    CredentialManagementParameters(credentialID: id, user: emptied), token: token)
            ).0 == .success)
        #expect(await h.store.credential(id: id.id)?.user == PublicKeyCredentialUserEntity(id: renamed.id))
        let stranger = CredentialManagementParameters(
            credentialID: id, user: PublicKeyCredentialUserEntity(id: [9, 9], name: "x"))
        #expect(
            try await Self.send(h, platform.credentialManagement(.updateUserInformation, stranger, token: token)).0
                == .invalidParameter)
        let missingUser = CredentialManagementParameters(credentialID: id)
        #expect(
            try await Self.send(h, platform.credentialManagement(.updateUserInformation, missingUser, token: token)).0
                == .missingParameter)
    }

    @Test(arguments: bothProtocols)
    func everyAuthenticatedSubcommandNeedsAValidCMToken(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, ids) = try await Self.populated(version)
        let id = PublicKeyCredentialDescriptor(id: try #require(ids["a.example/1"]))
        let cases: [(CredentialManagementSubcommand, CredentialManagementParameters?)] = [
            (.getCredsMetadata, nil), (.enumerateRPsBegin, nil),
            (.enumerateCredentialsBegin, CredentialManagementParameters(rpIDHash: Self.hash(Self.rpA.id))),
            (.deleteCredential, CredentialManagementParameters(credentialID: id)),
            (.updateUserInformation, CredentialManagementParameters(credentialID: id, user: Fixture.user(1)))
        ]
        let noCM = try await platform.grantedToken(pin: "1234", permissions: [.mc, .ga])
        for (subCommand, params) in cases {
            #expect(
                try await Self.send(h, CredentialManagementRequest(subCommand: subCommand, subCommandParams: params)).0
                    == .puatRequired)
            #expect(
                try await Self.send(h, platform.credentialManagement(subCommand, params, token: noCM)).0
                    == .pinAuthInvalid)
            var noProtocol = platform.credentialManagement(subCommand, params, token: noCM)
            noProtocol.pinUvAuthProtocol = nil
            #expect(try await Self.send(h, noProtocol).0 == .missingParameter)
        }
        #expect(await h.store.count() == 4)
        let cm = try await platform.grantedToken(pin: "1234", permissions: .cm)
        // A token with the permission, but a MAC that does not verify.
        for (subCommand, params) in cases {
            var wrongMAC = platform.credentialManagement(subCommand, params, token: cm)
            wrongMAC.pinUvAuthParam?[0] ^= 1
            #expect(try await Self.send(h, wrongMAC).0 == .pinAuthInvalid)
        }
        #expect(await h.store.count() == 4)
        // MACed over other parameters than those sent.
        var swapped = platform.credentialManagement(
            .enumerateCredentialsBegin, CredentialManagementParameters(rpIDHash: Self.hash(Self.rpA.id)), token: cm)
        swapped.subCommandParams = CredentialManagementParameters(rpIDHash: Self.hash(Self.rpB.id))
        #expect(try await Self.send(h, swapped).0 == .pinAuthInvalid)
        #expect(
            try await Self.send(h, platform.credentialManagement(.enumerateCredentialsBegin, token: cm)).0
                == .missingParameter)
        #expect(try await h.status(of: .credentialManagement, [0x01: 0x08]) == .invalidSubcommand)
    }

    @Test(arguments: bothProtocols)
    func anRPBoundTokenManagesOnlyThatRP(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, ids) = try await Self.populated(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm, rpID: Self.rpA.id)
        // Device-wide views are closed to it.
        #expect(
            try await Self.send(h, platform.credentialManagement(.getCredsMetadata, token: token)).0 == .pinAuthInvalid)
        #expect(
            try await Self.send(h, platform.credentialManagement(.enumerateRPsBegin, token: token)).0 == .pinAuthInvalid
        )
        let other = CredentialManagementParameters(rpIDHash: Self.hash(Self.rpB.id))
        #expect(
            try await Self.send(h, platform.credentialManagement(.enumerateCredentialsBegin, other, token: token)).0
                == .pinAuthInvalid)
        let deleteB = CredentialManagementParameters(
            credentialID: PublicKeyCredentialDescriptor(id: try #require(ids["b.example/1"])))
        #expect(
            try await Self.send(h, platform.credentialManagement(.deleteCredential, deleteB, token: token)).0
                == .pinAuthInvalid)
        #expect(await h.store.count() == 4)
        // Its own RP it manages.
        let own = CredentialManagementParameters(rpIDHash: Self.hash(Self.rpA.id))
        #expect(
            try await Self.send(h, platform.credentialManagement(.enumerateCredentialsBegin, own, token: token)).1?
                .totalCredentials == 2)
        let deleteA = CredentialManagementParameters(
            credentialID: PublicKeyCredentialDescriptor(id: try #require(ids["a.example/2"])))
        #expect(
            try await Self.send(h, platform.credentialManagement(.deleteCredential, deleteA, token: token)).0
                == .success)
    }

    @Test(arguments: bothProtocols)
    func enumerationStateGoesStale(version: PinUvAuthProtocolVersion) async throws {
        let (h, platform, ids) = try await Self.populated(version)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let begin = platform.credentialManagement(.enumerateRPsBegin, token: token)
        // Nothing begun: nothing to continue.
        #expect(try await Self.next(h, .enumerateRPsGetNextRP).0 == .notAllowed)
        // Any other command ends it.
        #expect(try await Self.send(h, begin).0 == .success)
        #expect(try await h.status(of: .getInfo) == .success)
        #expect(try await Self.next(h, .enumerateRPsGetNextRP).0 == .notAllowed)
        // So does another credential management subcommand, such as a delete.
        #expect(try await Self.send(h, begin).0 == .success)
        let delete = CredentialManagementParameters(
            credentialID: PublicKeyCredentialDescriptor(id: try #require(ids["c.example/1"])))
        #expect(
            try await Self.send(h, platform.credentialManagement(.deleteCredential, delete, token: token)).0 == .success
        )
        #expect(try await Self.next(h, .enumerateRPsGetNextRP).0 == .notAllowed)
        // The other enumeration's GetNext does not continue this one.
        #expect(try await Self.send(h, begin).0 == .success)
        #expect(try await Self.next(h, .enumerateCredentialsGetNextCredential).0 == .notAllowed)
        #expect(try await Self.next(h, .enumerateRPsGetNextRP).0 == .notAllowed)
        // And it lapses when the platform stops asking.
        let (_, fresh) = try await Self.send(h, begin)
        #expect(fresh?.totalRPs == 2, "the deleted RP is gone from a new enumeration")
        h.clock.advance(.seconds(31))
        #expect(try await Self.next(h, .enumerateRPsGetNextRP).0 == .notAllowed)
        // A power cycle ends it too.
        let credentials = CredentialManagementParameters(rpIDHash: Self.hash(Self.rpA.id))
        let token2 = try await platform.grantedToken(pin: "1234", permissions: .cm)
        #expect(
            try await Self.send(
                h, platform.credentialManagement(.enumerateCredentialsBegin, credentials, token: token2)
            ).0 == .success)
        await h.authenticator.powerCycle()
        #expect(try await Self.next(h, .enumerateCredentialsGetNextCredential).0 == .notAllowed)
    }

    @Test(arguments: bothProtocols)
    func emptyStoreHasNoCredentialsToEnumerate(version: PinUvAuthProtocolVersion) async throws {
        let h = Harness()
        let platform = PlatformPIN(h, version)
        #expect(try await platform.setPIN("1234") == .success)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        #expect(
            try await Self.send(h, platform.credentialManagement(.enumerateRPsBegin, token: token)).0 == .noCredentials)
        let params = CredentialManagementParameters(rpIDHash: Self.hash("a.example"))
        #expect(
            try await Self.send(h, platform.credentialManagement(.enumerateCredentialsBegin, params, token: token)).0
                == .noCredentials)
        let (_, metadata) = try await Self.send(h, platform.credentialManagement(.getCredsMetadata, token: token))
        #expect(metadata?.existingResidentCredentialsCount == 0)
        #expect(metadata?.maxPossibleRemainingResidentCredentialsCount == 100)
    }

    @Test func thePreviewCommandAnswersTheSame() async throws {
        let (h, platform, _) = try await Self.populated(.two)
        let token = try await platform.grantedToken(pin: "1234", permissions: .cm)
        let (status, response) = try await Self.send(
            h, platform.credentialManagement(.enumerateRPsBegin, token: token), command: .credentialManagementPreview)
        #expect(status == .success)
        #expect(response?.totalRPs == 3)
        #expect(
            try await Self.send(
                h, CredentialManagementRequest(subCommand: .enumerateRPsGetNextRP),
                command: .credentialManagementPreview
            ).1?.rp == Self.rpB)
    }

    /// A CTAP 2.1-PRE platform has only getPinToken's token: the preview command takes it,
    /// 0x0A still wants the cm permission.
    @Test(arguments: bothProtocols)
    func thePreviewCommandTakesALegacyGetPinToken(version: PinUvAuthProtocolVersion) async throws {
        let (h, _, _) = try await Self.populated(version)
        let platform = PlatformPIN(h, version)
        let legacy = try await platform.grantedToken(pin: "1234")
        let request = platform.credentialManagement(.getCredsMetadata, token: legacy)
        #expect(try await Self.send(h, request).0 == .pinAuthInvalid)
        let (status, metadata) = try await Self.send(h, request, command: .credentialManagementPreview)
        #expect(status == .success)
        #expect(metadata?.existingResidentCredentialsCount == 4)
        let mc = try await platform.grantedToken(pin: "1234", permissions: .mc)
        #expect(
            try await Self.send(
                h, platform.credentialManagement(.getCredsMetadata, token: mc), command: .credentialManagementPreview
            ).0 == .pinAuthInvalid)
    }
}
