import CBOR
import CTAP

/// The extensions a device offers (CTAP 2.1 §12), as a value: getInfo lists their identifiers
/// (§6.4 `extensions`), and makeCredential and getAssertion process exactly these, ignoring
/// any other identifier a request carries.
public struct ExtensionRegistry: Sendable {
    let extensions: [any AuthenticatorExtension]

    /// Everything passkeyd implements.
    public static let standard = ExtensionRegistry(extensions: [
        CredProtectExtension(),
        HMACSecretExtension(),
        HMACSecretMCExtension(),
        LargeBlobKeyExtension(),
        CredBlobExtension(),
        MinPinLengthExtension(),
        PreviewSignExtension(),
        ThirdPartyPaymentExtension()
    ])

    /// What the extensions keep with a credential (`StoresWithCredential`), each part declared in
    /// its extension's file.
    var storedParts: [any AnyExtensionStoredPart] {
        extensions.compactMap { ($0 as? any StoresWithCredential).map { type(of: $0).anyStored } }
    }

    /// getInfo's `extensions` member.
    public var identifiers: [String] { extensions.map { $0.identifier } }

    /// The part of this registry a device profile offers, by identifier, in this registry's order.
    public func selecting(_ identifiers: Set<String>) -> ExtensionRegistry {
        ExtensionRegistry(extensions: extensions.filter { identifiers.contains($0.identifier) })
    }

    /// Whether the registry offers `E` and the request's getAssertion input for it is `true`:
    /// for an extension whose output is a response member rather than authData (largeBlobKey).
    func asks<E: CTAPExtension>(_: E.Type, in inputs: ExtensionMap) throws(CTAPStatus) -> Bool
    where E.GetAssertionInput == Bool {
        guard identifiers.contains(E.identifier) else { return false }
        return try inputs.getAssertionInput(E.self) == true
    }

    /// Parses the inputs of the offered extensions present in a makeCredential request,
    /// before anything else happens, so a malformed input fails the request with its status.
    func makeCredential(_ inputs: ExtensionMap) throws(CTAPStatus) -> [PreparedCreationExtension] {
        var prepared: [PreparedCreationExtension] = []
        for handler in extensions { if let one = try handler.prepareCreation(inputs) { prepared.append(one) } }
        return prepared
    }

    /// The same for a getAssertion request.
    func getAssertion(_ inputs: ExtensionMap) throws(CTAPStatus) -> [PreparedAssertionExtension] {
        // No inputs, nothing prepared (an extension prepares only for its own input): most
        // sign-ins ask for none, and each look-up costs generic metadata at run time.
        guard !inputs.isEmpty else { return [] }
        var prepared: [PreparedAssertionExtension] = []
        for handler in extensions { if let one = try handler.prepareAssertion(inputs) { prepared.append(one) } }
        return prepared
    }
}

/// One extension's parsed makeCredential input, bound to its hooks.
struct PreparedCreationExtension: Sendable {
    let record: @Sendable (inout CredentialExtensionState, CredentialCreation) throws(CTAPStatus) -> Void
    let output: @Sendable (ExtensionContext) async throws(CTAPStatus) -> CreationOutputs
}

/// One extension's makeCredential outputs, for authData and for unsignedExtensionOutputs.
struct CreationOutputs: Sendable {
    let signed: (identifier: String, value: CBORValue)?
    let unsigned: (identifier: String, value: CBORValue)?
}

/// One extension's parsed getAssertion input, bound to its hook.
struct PreparedAssertionExtension: Sendable {
    let output: @Sendable (ExtensionContext) async throws(CTAPStatus) -> (identifier: String, value: CBORValue)?
}

extension AuthenticatorExtension {
    var identifier: String { Wire.identifier }

    func prepareCreation(_ inputs: ExtensionMap) throws(CTAPStatus) -> PreparedCreationExtension? {
        guard let input = try inputs.makeCredentialInput(Wire.self) else { return nil }
        return PreparedCreationExtension(
            record: { (credential, creation) throws(CTAPStatus) in try self.record(input, on: &credential, creation) },
            output: { context async throws(CTAPStatus) in
                let (signed, unsigned) = try await self.makeCredentialOutputs(input, context)
                return CreationOutputs(
                    signed: signed.map { (Wire.identifier, $0.cbor) }, unsigned: unsigned.map { (Wire.identifier, $0) })
            })
    }

    func prepareAssertion(_ inputs: ExtensionMap) throws(CTAPStatus) -> PreparedAssertionExtension? {
        guard let input = try inputs.getAssertionInput(Wire.self) else { return nil }
        return PreparedAssertionExtension(output: { context async throws(CTAPStatus) in
            try await self.getAssertionOutput(input, context).map { (Wire.identifier, $0.cbor) }
        })
    }
}

extension Sequence where Element == (identifier: String, value: CBORValue)? {
    /// authData's extensions map from the hooks' outputs; nil when there are none (no ED flag).
    var authenticatorDataExtensions: CBORValue? {
        let map = compactMap { $0 }.extensionMap
        return map.isEmpty ? nil : map.cbor
    }
}

extension Sequence where Element == (identifier: String, value: CBORValue) {
    /// The outputs as an extensions map.
    var extensionMap: ExtensionMap {
        var map = ExtensionMap()
        for (identifier, value) in self { map.set(identifier, value) }
        return map
    }
}
