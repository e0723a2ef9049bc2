import Authenticator
import CTAP
import Foundation
import Testing

@testable import Keystore

/// The `CredentialStore` contract, as the authenticator relies on it.
@Suite struct KeystoreStoreTests {
    @Test func everyFieldRoundTrips() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let credential = makeCredential()
        try await store.save(credential)

        #expect(try await store.credential(id: credential.id) == credential)
        #expect(try await store.credentials(rpID: "example.com") == [credential])
        #expect(try await store.credentials(rpID: "other.example").isEmpty)
        #expect(try await store.credential(id: [9, 9, 9]) == nil)
        #expect(try await store.allCredentials() == [credential])
        #expect(try await store.count() == 1)
        #expect(store.capacity == Keystore.defaultCapacity)
        try await store.close()
    }

    @Test func sameRPAndUserReplacesTheOldCredential() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let old = makeCredential(rp: "example.com", userHandle: [7])
        let otherRP = makeCredential(rp: "example.org", userHandle: [7])
        let otherUser = makeCredential(rp: "example.com", userHandle: [8])
        let new = makeCredential(rp: "example.com", userHandle: [7], name: "alice2")
        for credential in [old, otherRP, otherUser, new] { try await store.save(credential) }

        #expect(try await store.credential(id: old.id) == nil)
        #expect(try await store.credential(id: new.id) == new)
        #expect(try await store.credential(id: otherRP.id) == otherRP)
        #expect(try await store.credentials(rpID: "example.com") == [new, otherUser])
        #expect(try await store.credentials(rpID: "example.org") == [otherRP])
        #expect(try await store.count() == 3)
        try await store.close()
    }

    @Test func listsAreNewestFirstByInsertionNotByClock() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        // The clock goes backwards: insertion order must still win.
        let first = makeCredential(rp: "a.example", userHandle: [1], createdAt: Date(timeIntervalSince1970: 3000))
        let second = makeCredential(rp: "b.example", userHandle: [2], createdAt: Date(timeIntervalSince1970: 2000))
        let third = makeCredential(rp: "a.example", userHandle: [3], createdAt: Date(timeIntervalSince1970: 2000))
        let fourth = makeCredential(rp: "a.example", userHandle: [4], createdAt: Date(timeIntervalSince1970: 1000))
        for credential in [first, second, third, fourth] { try await store.save(credential) }

        #expect(try await store.credentials(rpID: "a.example") == [fourth, third, first])
        #expect(try await store.allCredentials() == [fourth, third, second, first])

        // Updates keep a credential's place; deleting the newest does not reorder the rest.
        try await store.updateSignCount(credentialID: first.id, to: 99)
        try await store.delete(credentialID: fourth.id)
        let fifth = makeCredential(rp: "a.example", userHandle: [5])
        try await store.save(fifth)
        #expect(try await store.credentials(rpID: "a.example").map(\.id) == [fifth.id, third.id, first.id])
        try await store.close()
    }

    @Test func signCountAndUserUpdatesPersist() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        var store = try openStore(temp.store)
        var credential = makeCredential()
        try await store.save(credential)
        try await store.updateSignCount(credentialID: credential.id, to: 42)
        let user = PublicKeyCredentialUserEntity(id: credential.user.id, name: "alice@new", displayName: "Alice New")
        try await store.updateUser(credentialID: credential.id, to: user)
        // Absent credentials are ignored.
        try await store.updateSignCount(credentialID: [0xFF], to: 1)
        try await store.updateUser(credentialID: [0xFF], to: user)
        try await store.close()

        store = try openStore(temp.store)
        credential.signCount = 42
        credential.user = user
        #expect(try await store.credential(id: credential.id) == credential)
        #expect(try await store.credentials(rpID: credential.rp.id) == [credential])
        #expect(try await store.count() == 1)
        try await store.close()
    }

    @Test func updateUserKeepsTheUserHandle() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        var credential = makeCredential(userHandle: [7])
        try await store.save(credential)
        try await store.updateUser(
            credentialID: credential.id, to: PublicKeyCredentialUserEntity(id: [8], name: "bob", displayName: "Bob"))
        credential.user = PublicKeyCredentialUserEntity(id: [7], name: "bob", displayName: "Bob")
        #expect(try await store.credential(id: credential.id) == credential)
        // The row is still found by RP, and a new credential for handle 7 still replaces it.
        #expect(try await store.credentials(rpID: credential.rp.id) == [credential])
        let replacement = makeCredential(userHandle: [7])
        try await store.save(replacement)
        #expect(try await store.allCredentials() == [replacement])
        try await store.close()
    }

    @Test func deleteAndDeleteAll() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        let a = makeCredential(rp: "a.example")
        let b = makeCredential(rp: "b.example")
        try await store.save(a)
        try await store.save(b)
        try await store.saveDeviceState(DeviceState(wrappingKey: Array(repeating: 5, count: 32)))

        try await store.delete(credentialID: a.id)
        try await store.delete(credentialID: a.id)  // absent: not an error
        #expect(try await store.allCredentials() == [b])
        #expect(try await store.credentials(rpID: "a.example").isEmpty)

        try await store.deleteAll()
        #expect(try await store.count() == 0)
        #expect(try await store.allCredentials().isEmpty)
        // Replaced by a factory-fresh one, never absent (hardening F3: absence means tampering).
        let reset = try #require(try await store.loadDeviceState())
        #expect(reset.pinHash == nil && reset.pinRetries == DeviceState.maxPINRetries)
        #expect(reset.wrappingKey != Array(repeating: 5, count: 32))
        try await store.close()
    }

    @Test func deviceStateRoundTripsAndIsReplaced() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        var store = try openStore(temp.store)
        #expect(try await store.loadDeviceState()?.pinHash == nil, "a new store starts factory-fresh")
        var state = DeviceState(wrappingKey: Array(0..<32))
        try await store.saveDeviceState(state)
        state.pinHash = Array(repeating: 0xAB, count: 16)
        state.pinRetries = 5
        state.forcePINChange = true
        try await store.saveDeviceState(state)
        try await store.close()

        store = try openStore(temp.store)
        #expect(try await store.loadDeviceState() == state)
        try await store.close()
    }

    @Test func fullStoreRefusesNewCredentialsButAcceptsReplacements() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store, capacity: 2)
        let a = makeCredential(rp: "a.example", userHandle: [1])
        try await store.save(a)
        try await store.save(makeCredential(rp: "b.example", userHandle: [1]))
        #expect(await StoreOutcome { try await store.save(makeCredential(rp: "c.example", userHandle: [1])) } == .full)
        let replacement = makeCredential(rp: "a.example", userHandle: [1])
        try await store.save(replacement)
        #expect(try await store.credentials(rpID: "a.example") == [replacement])
        #expect(try await store.count() == 2)
        try await store.close()
    }

    @Test func aClosedStoreRefusesCalls() async throws {
        let temp = TemporaryDirectory()
        defer { temp.remove() }
        let store = try openStore(temp.store)
        try await store.close()
        #expect(await StoreOutcome { _ = try await store.count() } == .failed(.closed))
        #expect(await StoreOutcome { try await store.save(makeCredential()) } == .failed(.closed))
        // The lookups, which run outside the actor, see the close too.
        #expect(await StoreOutcome { _ = try await store.credentials(rpID: "example.com") } == .failed(.closed))
        #expect(await StoreOutcome { _ = try await store.credential(id: [1, 2, 3]) } == .failed(.closed))
        try await store.close()
    }
}
