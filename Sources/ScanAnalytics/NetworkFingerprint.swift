import Crypto
import Foundation

/// A stable, anonymous name for the network path this machine is on: a hash of the default route's
/// interface, gateway address and gateway MAC (from `/proc/net/route` and `/proc/net/arp`) and the
/// proxy settings. Raw addresses never leave this type.
public struct NetworkFingerprint: Sendable, Equatable {
    /// 16 hex digits.
    public let id: String
    /// The interface of the default route (e.g. `eth0`), for display; not part of any record.
    public let interface: String?

    /// Reads the live system.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> NetworkFingerprint {
        let route = (try? String(contentsOfFile: "/proc/net/route", encoding: .utf8)) ?? ""
        let arp = (try? String(contentsOfFile: "/proc/net/arp", encoding: .utf8)) ?? ""
        return make(route: route, arp: arp, environment: environment)
    }

    /// Computes the fingerprint from the contents of `/proc/net/route` and `/proc/net/arp`.
    public static func make(route: String, arp: String, environment: [String: String]) -> NetworkFingerprint {
        var interface: String?
        var gateway = "none"
        for line in route.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count >= 3, fields[1] == "00000000", let raw = UInt32(fields[2], radix: 16) else { continue }
            interface = String(fields[0])
            // /proc/net/route stores the gateway little-endian
            gateway = [raw & 0xFF, (raw >> 8) & 0xFF, (raw >> 16) & 0xFF, raw >> 24].map(String.init).joined(separator: ".")
            break
        }
        var mac = "none"
        for line in arp.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count >= 4, fields[0] == gateway { mac = fields[3].lowercased() }
        }
        let proxies = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"].map { key in
            environment[key] ?? environment[key.uppercased()] ?? ""
        }
        let material = ([interface ?? "none", gateway, mac] + proxies).joined(separator: "|")
        let digest = SHA256.hash(data: Array(material.utf8))
        let id = digest.prefix(8).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return NetworkFingerprint(id: id, interface: interface)
    }

    /// A 16-hex-digit hash of a server URL's scheme, host and port (`embedded` for the in-process service).
    public static func serverID(_ baseURL: String?) -> String {
        guard let baseURL, let url = URL(string: baseURL), let host = url.host else { return "embedded" }
        let material = "\(url.scheme ?? "http")://\(host.lowercased()):\(url.port ?? (url.scheme == "https" ? 443 : 80))"
        return SHA256.hash(data: Array(material.utf8)).prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
