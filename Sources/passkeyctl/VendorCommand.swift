/// passkeyd's vendor CTAPHID commands (docs/vendor-commands.md).
enum VendorCommand: UInt8 {
    case presence = 0x50
    case replug = 0x51
    case status = 0x52
}
