import Foundation

/// A console setup link as a process other than the server (`latchkey operators create`) can
/// know it.
public struct ConsoleSetupLink: Sendable, Equatable {
    /// The link: a whole URL when the console's address is known from the configuration, else
    /// only the path (`/console/setup?token=…`) to open on the console's address.
    public var link: String
    /// Why the link is only a path, and where to open it; nil for a whole URL.
    public var note: String?
}

extension ServerConfiguration {
    /// The console's setup page for `token`: on `admin.consoleURL`, else on the admin listener's
    /// address (or `publicURL` with `admin.onPublicPort`). A port of 0 is picked by the server
    /// when it starts, which another process cannot know; without a `consoleURL` the link is then
    /// the path alone, with a note saying where to open it and how to get whole links.
    public func consoleSetupLink(token: String) -> ConsoleSetupLink {
        let path = "/console/setup?token=" + token
        if admin.consoleURL == nil {
            // Where the console listens: the public port with `onPublicPort` (its address is
            // `publicURL` when set), else the admin listener.
            let (picked, listener, setting) = admin.onPublicPort
                ? (publicURL == nil && port == 0, "Latchkey listening", "port")
                : (admin.port == 0, "Admin API listening", "admin.port")
            if picked {
                return ConsoleSetupLink(link: path, note: """
                    \(setting) is 0: the server picks its port when it starts, and this command cannot know which. \
                    Open the path above on the address of the server's "\(listener)" log line, \
                    or set admin.consoleURL to have whole links printed.
                    """)
            }
        }
        return ConsoleSetupLink(link: admin.resolvedConsoleURL(publicURL: resolvedPublicURL) + path, note: nil)
    }
}
