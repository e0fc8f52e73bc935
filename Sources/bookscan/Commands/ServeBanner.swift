import BookscanBase
import Foundation

/// What `bookscan serve` prints once it listens: the web client's URL (a phone opens it and
/// photographs a shelf). Listening on every address (`--host 0.0.0.0` or `::`), it prints the URL of
/// each LAN address this machine has, each with a QR code drawn in the terminal, so a phone's camera
/// opens the page; the codes only when the output is a terminal (a log file gets the URLs alone).
struct ServeBanner {
    let scheme: String
    let host: String
    let port: Int

    /// Hosts that mean "every address of this machine".
    static let wildcardHosts: Set<String> = ["0.0.0.0", "::", "[::]"]

    /// The page's URL on `address` (IPv6 in brackets).
    func url(_ address: String) -> String {
        let shown = address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
        return "\(scheme)://\(shown):\(port)/"
    }

    /// The URLs to print: each LAN address for a wildcard host (loopback when there is none), else the host's.
    func urls(lanAddresses: [String]) -> [String] {
        guard Self.wildcardHosts.contains(host) else { return [url(host)] }
        let addresses = lanAddresses.isEmpty ? ["127.0.0.1"] : lanAddresses
        return addresses.map(url)
    }

    /// The `host:port` authorities the page can be opened at, for its Content Security Policy
    /// (`ServiceConfiguration.webOrigins`): those of `urls`, and loopback's names for a wildcard or loopback host;
    /// empty for port 0 (the port is known only once bound: each connection's own address is used then).
    func authorities(lanAddresses: [String]) -> [String] {
        guard port > 0 else { return [] }
        func authority(_ address: String) -> String {
            (address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address) + ":\(port)"
        }
        let named = Self.wildcardHosts.contains(host) ? lanAddresses : [host]
        let loopback = Self.wildcardHosts.contains(host) || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        var out: [String] = []
        for address in named + (loopback ? ["127.0.0.1", "localhost"] : []) where !out.contains(authority(address)) {
            out.append(authority(address))
        }
        return out
    }

    /// The banner's text; `drawsCodes` adds a QR code under each URL of a wildcard host.
    func text(lanAddresses: [String], drawsCodes: Bool) -> String {
        let urls = urls(lanAddresses: lanAddresses)
        var text = urls.count == 1 ? "Open the web client: \(urls[0])\n" : "Open the web client on the same network at one of:\n"
        let wildcard = Self.wildcardHosts.contains(host)
        for url in urls {
            if urls.count > 1 { text += "  \(url)\n" }
            if wildcard && drawsCodes, let code = try? QRCode(text: url, level: .medium) {
                text += Self.terminalDrawing(of: code)
            }
        }
        return text
    }

    /// Prints the banner on standard output (codes only when it is a terminal).
    func write() {
        let drawsCodes = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        let text = text(lanAddresses: Self.lanAddresses(ipv6: host.contains(":")), drawsCodes: drawsCodes)
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Quiet zone around a drawn code, in modules (the standard asks for 4).
    static let quietZone = 4

    /// `code` in Unicode half blocks, two module rows a text line, black on white whatever the
    /// terminal's colours (ANSI 256-colour 16 and 231), with the quiet zone.
    static func terminalDrawing(of code: QRCode) -> String {
        let side = code.size + 2 * quietZone
        func dark(_ x: Int, _ y: Int) -> Bool {
            let mx = x - quietZone, my = y - quietZone
            return (0..<code.size).contains(mx) && (0..<code.size).contains(my) && code.modules[my][mx]
        }
        var text = ""
        for y in stride(from: 0, to: side, by: 2) {
            text += "\u{1B}[38;5;16;48;5;231m"
            for x in 0..<side {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): text += "█"
                case (true, false): text += "▀"
                case (false, true): text += "▄"
                case (false, false): text += " "
                }
            }
            text += "\u{1B}[0m\n"
        }
        return text
    }

    /// This machine's addresses a phone on the LAN can reach: up, not loopback, not link-local;
    /// IPv4, and IPv6 too when `ipv6`.
    static func lanAddresses(ipv6: Bool) -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || (ipv6 && family == AF_INET6) else { continue }
            var name = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("169.254.") || text.lowercased().hasPrefix("fe80") { continue }
            if !addresses.contains(text) { addresses.append(text) }
        }
        return addresses
    }
}
