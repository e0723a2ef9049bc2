import CBOR

/// A command's `subCommand` number (CTAP 2.1 §6.5.5, §6.8): a number this specification
/// does not define is `CTAP2_ERR_INVALID_SUBCOMMAND`, a non-integer the wrong type.
public protocol CTAPSubcommand: CTAPNumberedValue {}

extension CTAPSubcommand {
    public static var unknownValueStatus: CTAPStatus { .invalidSubcommand }
}
