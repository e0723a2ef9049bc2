import ArgumentParser
import Foundation

/// `passkeyctl exec -- COMMAND…`: an unmodified libfido2 program (fido2-token, ssh-keygen,
/// pamu2fcfg, pamtester…) run with passkeyd among its devices.
///
/// The command replaces passkeyctl (execvp), so its exit status and signals are its own. It gets
/// libpasskeyd-preload.so appended to LD_PRELOAD and PASSKEYD_SOCKET set to the socket, which the
/// library lists as the device `passkeyd:<socket>` (docs/integrations.md, "libfido2 tools").
struct ExecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a program that uses libfido2 with passkeyd listed as one of its devices.",
        discussion: """
            The program runs with libpasskeyd-preload.so added to LD_PRELOAD and PASSKEYD_SOCKET set, and lists passkeyd as the device passkeyd:<socket>. The library is found in $PASSKEYD_PRELOAD, else <bindir>/../lib/passkeyd/, else the source tree's integrations/preload/build/.

            Limits: the dynamic loader ignores LD_PRELOAD for setuid and setgid programs (run them another way, or use pam_u2f through pamtester); programs that load libfido2 with RTLD_DEEPBIND, link it statically or find keys without fido_dev_info_manifest do not see passkeyd.

            Exit status: the program's own; 127 when it cannot be found, 126 when it cannot be run, 1 when the library is missing or others could have written it.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        parsing: .postTerminator, help: ArgumentHelp("The program and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func run() throws {
        guard let program = command.first else {
            throw Failure.usage(
                "Name the program to run: passkeyctl exec -- COMMAND [ARGUMENT…] (for example `passkeyctl exec -- fido2-token -L`)."
            )
        }
        let library = try PreloadLibrary.find()
        setenv("LD_PRELOAD", Self.preload(adding: library, to: ProcessInfo.processInfo.environment["LD_PRELOAD"]), 1)
        setenv("PASSKEYD_SOCKET", PreloadLibrary.absolute(global.socketPath), 1)
        fflush(nil)
        execute(program, command)
    }

    /// LD_PRELOAD with the library appended (ld.so(8): entries separated by colons or spaces), once.
    static func preload(adding library: String, to existing: String?) -> String {
        guard let existing, !existing.isEmpty else { return library }
        let entries = existing.split(whereSeparator: { $0 == ":" || $0 == " " }).map(String.init)
        return entries.contains(library) ? existing : existing + ":" + library
    }

    /// execvp(3) on PATH; returns only to report why not, with the shell's statuses (127, 126).
    private func execute(_ program: String, _ words: [String]) -> Never {
        // A thread's blocked signals survive exec; the program starts with none blocked, as from a shell.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        let argv = words.map { strdup($0) } + [nil]
        execvp(program, argv)
        let reason = errno
        let notFound = reason == ENOENT || reason == ENOTDIR
        let searched = notFound && !program.contains("/")
        Output.error(
            "passkeyctl: cannot run \(program): \(String(cString: strerror(reason)))"
                + (searched ? " (not found on PATH)." : "."))
        Foundation.exit(notFound ? 127 : 126)
    }
}
