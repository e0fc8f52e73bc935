import Crypto
import Foundation

/// A stable, anonymous name for the network path this machine is on: a hash of the IPv4 default
/// route's interface, gateway address and gateway MAC (`/proc/net/route`, `/proc/net/arp`), the IPv6
/// default route's interface and next hop (`/proc/net/ipv6_route`), and the proxy settings. Raw
/// addresses never leave this type.
///
/// The gateway MAC is only in the ARP cache while the kernel remembers it. So that a cold cache does
/// not make a known network look new, the MAC last seen for a gateway is remembered
/// (`knownGatewayMACs`, kept by `current()` in the state directory) and used when ARP has none.
package struct NetworkFingerprint: Sendable, Equatable {
    /// 16 hex digits.
    package let id: String
    /// The interface of the default route (e.g. `eth0`), for display; not part of any record.
    package let interface: String?
    /// The IPv4 gateway (as `interface|address`) and the MAC seen for it, for `knownGatewayMACs`; nil when unknown.
    package let gatewayMAC: (gateway: String, mac: String)?

    package static func == (a: NetworkFingerprint, b: NetworkFingerprint) -> Bool { a.id == b.id && a.interface == b.interface }

    /// The file `current()` keeps gateway MACs in.
    package static func gatewayMACsPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        StateDirectory.path(environment: environment) + "/gateways.json"
    }

    /// Reads the live system (and remembers the gateway's MAC for when the ARP cache is cold).
    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> NetworkFingerprint {
        let route = (try? String(contentsOfFile: "/proc/net/route", encoding: .utf8)) ?? ""
        let ipv6Route = (try? String(contentsOfFile: "/proc/net/ipv6_route", encoding: .utf8)) ?? ""
        let arp = (try? String(contentsOfFile: "/proc/net/arp", encoding: .utf8)) ?? ""
        let cachePath = gatewayMACsPath(environment: environment)
        var known = FileManager.default.contents(atPath: cachePath).flatMap { try? JSONDecoder().decode([String: String].self, from: $0) } ?? [:]
        let fingerprint = make(route: route, ipv6Route: ipv6Route, arp: arp, environment: environment, knownGatewayMACs: known)
        if let (gateway, mac) = fingerprint.gatewayMAC, known[gateway] != mac {
            known[gateway] = mac
            if known.count > 256 { known = [gateway: mac] }
            if let data = try? JSONEncoder().encode(known) {
                try? FileManager.default.createDirectory(
                    atPath: (cachePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try? data.write(to: URL(fileURLWithPath: cachePath), options: .atomic)
            }
        }
        return fingerprint
    }

    /// Computes the fingerprint from the contents of `/proc/net/route`, `/proc/net/ipv6_route` and
    /// `/proc/net/arp`; `knownGatewayMACs` supplies a gateway's MAC when the ARP cache has none.
    package static func make(
        route: String, ipv6Route: String = "", arp: String, environment: [String: String], knownGatewayMACs: [String: String] = [:]
    ) -> NetworkFingerprint {
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
        var mac: String?
        for line in arp.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            // An incomplete entry (flags 0x0) has the MAC 00:00:00:00:00:00: the same as none.
            if fields.count >= 4, fields[0] == gateway, fields[3] != "00:00:00:00:00:00" { mac = fields[3].lowercased() }
        }
        let gatewayKey = "\(interface ?? "none")|\(gateway)"
        if mac == nil, interface != nil { mac = knownGatewayMACs[gatewayKey] }
        let ipv6 = ipv6DefaultRoute(ipv6Route)
        let proxies = ["http_proxy", "https_proxy", "all_proxy", "no_proxy"].map { key in
            environment[key] ?? environment[key.uppercased()] ?? ""
        }
        // An IPv4-only host hashes exactly what earlier versions hashed, so its remembered verdicts stay valid.
        let material = ([interface ?? "none", gateway, mac ?? "none"] + proxies + (ipv6.map { ["v6", $0.interface, $0.nextHop] } ?? []))
            .joined(separator: "|")
        let digest = SHA256.hash(data: Array(material.utf8))
        let id = digest.prefix(8).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return NetworkFingerprint(
            id: id, interface: interface ?? ipv6?.interface, gatewayMAC: interface != nil ? mac.map { (gatewayKey, $0) } : nil)
    }

    /// The IPv6 default route (`::/0`) with the lowest metric, not on loopback: its interface and next hop.
    static func ipv6DefaultRoute(_ table: String) -> (interface: String, nextHop: String)? {
        var best: (metric: UInt32, interface: String, nextHop: String)?
        for line in table.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            // dest, dest prefix, src, src prefix, next hop, metric, refcnt, use, flags, interface
            guard fields.count >= 10, fields[0].allSatisfy({ $0 == "0" }), fields[1] == "00", fields[9] != "lo",
                let metric = UInt32(fields[5], radix: 16), let flags = UInt32(fields[8], radix: 16), flags & 0x1 != 0
            else { continue }
            if let current = best, current.metric <= metric { continue }
            best = (metric, String(fields[9]), fields[4].lowercased())
        }
        return best.map { ($0.interface, $0.nextHop) }
    }

    /// A 16-hex-digit hash of a server URL's scheme, host and port (`embedded` for the in-process service).
    package static func serverID(_ baseURL: String?) -> String {
        guard let baseURL, let url = URL(string: baseURL), let host = url.host else { return "embedded" }
        let material = "\(url.scheme ?? "http")://\(host.lowercased()):\(url.port ?? (url.scheme == "https" ? 443 : 80))"
        return SHA256.hash(data: Array(material.utf8)).prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
