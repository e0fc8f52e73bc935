/// An image container format, recognised by its magic bytes (never by file name or header).
package enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg, png, gif, webp, heic, avif, bmp, tiff

    /// A name for people.
    package var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        }
    }

    /// The format the bytes start with, or nil when none is recognised.
    package static func detect<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> ImageFormat? where Bytes.Element == UInt8, Bytes.Index == Int {
        func at(_ i: Int) -> UInt8? { i < bytes.count ? bytes[bytes.startIndex + i] : nil }
        func matches(_ offset: Int, _ signature: [UInt8]) -> Bool {
            guard bytes.count >= offset + signature.count else { return false }
            for (k, v) in signature.enumerated() where at(offset + k) != v { return false }
            return true
        }
        if matches(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if matches(0, Array("GIF87a".utf8)) || matches(0, Array("GIF89a".utf8)) { return .gif }
        if matches(0, Array("RIFF".utf8)) && matches(8, Array("WEBP".utf8)) { return .webp }
        if matches(4, Array("ftyp".utf8)) {
            let brands: [String: ImageFormat] = [
                "heic": .heic, "heix": .heic, "hevc": .heic, "heim": .heic, "heis": .heic, "mif1": .heic, "msf1": .heic,
                "avif": .avif, "avis": .avif,
            ]
            if bytes.count >= 12 {
                let brand = String(decoding: (8..<12).compactMap { at($0) }, as: UTF8.self)
                if let format = brands[brand] { return format }
            }
            return .heic
        }
        if matches(0, Array("BM".utf8)) { return .bmp }
        if matches(0, [0x49, 0x49, 0x2A, 0x00]) || matches(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        return nil
    }
}
