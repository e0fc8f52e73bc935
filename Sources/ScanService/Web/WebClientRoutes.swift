import BookscanBase
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ScanProtocol

/// The web client `bookscan serve` answers at `/`: a page and its JavaScript modules and style
/// sheet, compiled into the binary (`PackageResources`), open to everyone (the page asks for the
/// token itself and sends it on every API call). Every answer carries a strict Content Security
/// Policy (scripts, styles and connections only from this origin, no inline script) and an `ETag`
/// with `Cache-Control: no-cache`, so a phone revalidates cheaply and never mixes modules of two versions.
struct WebClientRoutes: Sendable {
    /// The `host:port` authorities the page is opened at (`ServiceConfiguration.webOrigins`), whose `ws:`/`wss:`
    /// origins its CSP names; empty: the address the connection came in on. Never the request's `Host`.
    let origins: [String]
    /// `http` or `https`, as the page is served.
    var scheme = "http"

    /// The page's QR code (`/web/qr.svg`): the page's URL on the first configured address that is not loopback,
    /// for a phone to open it from a computer's screen; nil without one (the route answers 204).
    var phoneURL: String? {
        origins.first { origin in !["127.", "localhost", "[::1]"].contains { origin.hasPrefix($0) } }.map { "\(scheme)://\($0)/" }
    }

    /// The asset name of the QR code.
    static let qrCodeAsset = "qr.svg"

    /// One compiled-in file of the page.
    struct Asset: Sendable {
        let bytes: [UInt8]
        let contentType: String
        /// A strong validator: the FNV-1a 64 hash of the bytes.
        let etag: String

        init(_ bytes: [UInt8], _ contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            self.etag = "\"" + String(hash, radix: 16) + "\""
        }
    }

    static let javaScript = "text/javascript; charset=utf-8"
    /// The page's files by name under `assetPrefix`.
    static let assets: [String: Asset] = [
        "app.css": Asset(PackageResources.app_css, "text/css; charset=utf-8"),
        "app.js": Asset(PackageResources.app_js, javaScript),
        "booklist.js": Asset(PackageResources.booklist_js, javaScript),
        "merge.js": Asset(PackageResources.merge_js, javaScript),
        "result.js": Asset(PackageResources.result_js, javaScript),
        "tracker.js": Asset(PackageResources.tracker_js, javaScript),
        "upload.js": Asset(PackageResources.upload_js, javaScript),
    ]
    static let page = Asset(PackageResources.index_html, "text/html; charset=utf-8")

    func register(on routes: AccessGroups) {
        routes.on(.webPage, .get) { request, context in Self.answer(Self.page, to: request, authorities: authorities(context)) }
        routes.on(.webAsset, .get) { request, context in
            if context.parameters.get(Routes.webAssetParameter) == Self.qrCodeAsset {
                // No address but loopback: nothing to show (204, which the page's image takes as no image, quietly).
                guard let url = phoneURL, let svg = try? Self.svg(QRCode(text: url)) else { return Response(status: .noContent) }
                return Self.answer(Asset(Array(svg.utf8), "image/svg+xml"), to: request, authorities: authorities(context))
            }
            guard let name = context.parameters.get(Routes.webAssetParameter), let asset = Self.assets[name] else {
                throw ServiceError(.notFound, .notFound, "no file \(request.uri.path.prefix(120))")
            }
            return Self.answer(asset, to: request, authorities: authorities(context))
        }
    }

    /// `code` as an SVG image: one path of dark modules on white, a quiet zone of 4.
    static func svg(_ code: QRCode) -> String {
        let side = code.size + 8
        var path = ""
        for (y, row) in code.modules.enumerated() {
            for (x, dark) in row.enumerated() where dark { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }

    /// The configured origins, or the local address `host:port` of the request's connection.
    func authorities(_ context: ScanRequestContext) -> [String] {
        guard origins.isEmpty else { return origins }
        guard let local = context.channel.localAddress, let ip = local.ipAddress, let port = local.port else { return [] }
        return [(ip.contains(":") ? "[\(ip)]" : ip) + ":\(port)"]
    }

    /// The asset, or `304 Not Modified` when the browser already holds this version.
    static func answer(_ asset: Asset, to request: Request, authorities: [String]) -> Response {
        var headers = securityHeaders(authorities: authorities)
        headers[.eTag] = asset.etag
        headers[.cacheControl] = "no-cache"
        if let held = request.headers[.ifNoneMatch], held.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// The headers every file of the page carries. `connect-src` allows the page's own `blob:` URLs (its CSV
    /// download) and names the WebSocket origins of `authorities` explicitly (older Safari does not count `ws:`
    /// as `'self'`), each only when it is a plain host name or address.
    static func securityHeaders(authorities: [String]) -> HTTPFields {
        var connect = "'self' blob:"
        for authority in authorities where isPlainAuthority(authority) { connect += " ws://\(authority) wss://\(authority)" }
        let policy = [
            "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:", "connect-src \(connect)",
            "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = policy
        headers[.xContentTypeOptions] = "nosniff"
        if let name = HTTPField.Name.referrerPolicy { headers[name] = "no-referrer" }
        if let name = HTTPField.Name.xFrameOptions { headers[name] = "DENY" }
        return headers
    }

    /// Whether `authority` is `host[:port]` of letters, digits, `.`, `-`, or a bracketed IPv6 address.
    static func isPlainAuthority(_ authority: String) -> Bool {
        guard !authority.isEmpty, authority.utf8.count <= 260 else { return false }
        return authority.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-:[]".unicodeScalars.contains(scalar))
        }
    }
}

extension HTTPField.Name {
    /// `Referrer-Policy` (not among HTTPTypes' names).
    static let referrerPolicy = Self("Referrer-Policy")
    /// `X-Frame-Options` (not among HTTPTypes' names).
    static let xFrameOptions = Self("X-Frame-Options")
}
