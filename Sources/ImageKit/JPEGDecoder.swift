import CJPEGShim

/// A JPEG decoded by libjpeg, possibly DCT-scaled, with the size recorded in the file.
package struct DecodedJPEG: Sendable {
    /// The decoded pixels (after DCT scaling, before any orientation fix).
    package var image: PixelBuffer
    /// Width and height stored in the file.
    package var sourceWidth: Int
    package var sourceHeight: Int
    /// The DCT scale denominator used (1, 2, 4 or 8).
    package var scaleDenominator: Int
}

/// The size and colour components a JPEG header declares, and what decoding it costs.
package struct JPEGHeader: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var components: Int
    /// A progressive JPEG (its scans refine the whole image one after another).
    package var progressive: Bool
    /// Bytes of the whole-image coefficient buffer libjpeg allocates to decode it at any DCT scale: 0 for
    /// a single-scan (baseline) JPEG, about 2 bytes per pixel per full-resolution component otherwise.
    package var coefficientBufferBytes: Int
    /// Start-of-scan markers in the data (1 for a baseline JPEG, about 10 for a progressive photo).
    package var scans: Int
    /// Arithmetic entropy coding (SOF9–SOF15), which no camera writes.
    package var arithmeticCoding: Bool = false
}

/// Decodes JPEG bytes with libjpeg(-turbo), using DCT scaling to reach a working size cheaply.
package enum JPEGDecoder {
    /// Reads only the header (size, components, the coefficient buffer a decode needs) and counts the scans
    /// from the markers. No pixel or coefficient memory is allocated, nothing is decoded.
    package static func readHeader(_ data: [UInt8]) throws(ImageError) -> JPEGHeader {
        try checkSignature(data)
        var header = bs_jpeg_header()
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBufferPointer { buffer in
            bs_jpeg_read_header(buffer.baseAddress, buffer.count, &header, &message, message.count)
        }
        if status == -4 { throw .truncated(cString(message)) }
        guard status == 0 else { throw .corrupt(cString(message)) }
        return JPEGHeader(
            width: Int(header.width), height: Int(header.height), components: Int(header.components), progressive: header.progressive != 0,
            coefficientBufferBytes: Int(clamping: header.coefficient_bytes), scans: Int(header.scans), arithmeticCoding: header.arithmetic != 0)
    }

    /// The memory a decode of `header` holds at its peak: the pixels it returns (RGB, or gray) at 1/`scaleDenominator`
    /// plus libjpeg's coefficient buffer (libjpeg's row buffers, a few hundred bytes per pixel of width, come on top).
    package static func decodeMemory(of header: JPEGHeader, scaleDenominator: Int, gray: Bool = false) -> Int {
        let denominator = [1, 2, 4, 8].contains(scaleDenominator) ? scaleDenominator : 1
        let width = (header.width + denominator - 1) / denominator, height = (header.height + denominator - 1) / denominator
        return width * height * (gray ? 1 : 3) + header.coefficientBufferBytes
    }

    /// The largest DCT scale denominator (1, 2, 4, 8) that keeps the long side at least `minimumLongSide`.
    package static func scaleDenominator(sourceLongSide: Int, minimumLongSide: Int) -> Int {
        var denominator = 1
        for candidate in [2, 4, 8] where sourceLongSide / candidate >= minimumLongSide {
            denominator = candidate
        }
        return denominator
    }

    /// Decodes to RGB. `scaleDenominator` 1, 2, 4 or 8 shrinks in the DCT domain (fast);
    /// `maxPixels` refuses a header larger than that many source pixels before allocating;
    /// `strict` refuses data libjpeg can only decode with warnings: `.truncated` when the data ran out first,
    /// `.corruptData` for bad entropy data or stray markers. A truncated header is `.truncated` in any mode.
    /// `limits` bound the scans, the coefficient buffer and the time (`.overLimit`).
    package static func decode(
        _ data: [UInt8], scaleDenominator: Int = 1, maxPixels: Int = 0, strict: Bool = false, limits: JPEGDecodeLimits = .standard
    ) throws(ImageError) -> DecodedJPEG {
        let decoded = try decodePixels(
            data, scaleDenominator: scaleDenominator, maxPixels: maxPixels, strict: strict, gray: false, limits: limits)
        guard let image = PixelBuffer(width: decoded.width, height: decoded.height, pixels: decoded.pixels) else {
            throw .corrupt("decoder returned an empty image")
        }
        return DecodedJPEG(
            image: image, sourceWidth: decoded.header.width, sourceHeight: decoded.header.height,
            scaleDenominator: decoded.width == decoded.header.width ? 1 : scaleDenominator
        )
    }

    /// Decodes RGB or gray pixels into an array allocated at libjpeg's output size (the source size over
    /// the DCT scale denominator, rounded up), so the decoded photo is held once, never as a C buffer and
    /// a copy of it (12 MB twice for a 12 MP photo read in gray). Too many pixels, scans or coefficient bytes
    /// are refused from the header and markers, before any of that memory is allocated.
    static func decodePixels(
        _ data: [UInt8], scaleDenominator: Int, maxPixels: Int, strict: Bool, gray: Bool, limits: JPEGDecodeLimits
    ) throws(ImageError) -> (pixels: [UInt8], width: Int, height: Int, header: JPEGHeader) {
        let header = try readHeader(data)
        if maxPixels > 0, header.width * header.height > maxPixels {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        }
        try limits.check(header)
        let denominator = [1, 2, 4, 8].contains(scaleDenominator) ? scaleDenominator : 1
        let width = (header.width + denominator - 1) / denominator, height = (header.height + denominator - 1) / denominator
        let count = width * height * (gray ? 1 : 3)
        var out = bs_jpeg_image()
        var message = [CChar](repeating: 0, count: 256)
        var status: Int32 = -1
        var shimLimits = limits.shimLimits
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = data.withUnsafeBufferPointer { input in
                bs_jpeg_decode(
                    input.baseAddress, input.count, Int32(denominator), UInt64(max(0, maxPixels)), strict ? 1 : 0, gray ? 1 : 0,
                    &shimLimits, buffer.baseAddress, count, &out, &message, message.count)
            }
            initialized = status == 0 ? count : 0
        }
        switch status {
        case 0: break
        case -3: throw .corruptData(cString(message))
        case -4: throw .truncated(cString(message))
        case BS_JPEG_OVER_MEMORY: throw .overLimit(.memory(needed: header.coefficientBufferBytes, limit: limits.maxMemory))
        case BS_JPEG_OVER_SCANS: throw .overLimit(.scans(found: max(header.scans, limits.maxScans + 1), limit: limits.maxScans))
        case BS_JPEG_OVER_TIME: throw .overLimit(.time(limit: limits.timeLimit ?? .zero))
        case BS_JPEG_ARITHMETIC: throw .overLimit(.arithmeticCoding)
        default: throw .corrupt(cString(message))
        }
        return (pixels, Int(out.width), Int(out.height), header)
    }

    /// Decodes so the long side is at least `minimumLongSide` (or the full size if smaller), using the
    /// largest DCT scale that allows it.
    package static func decode(
        _ data: [UInt8], minimumLongSide: Int, maxPixels: Int = 0, strict: Bool = false, limits: JPEGDecodeLimits = .standard
    ) throws(ImageError) -> DecodedJPEG {
        let header = try readHeader(data)
        if maxPixels > 0, header.width * header.height > maxPixels {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        }
        let denominator = scaleDenominator(sourceLongSide: max(header.width, header.height), minimumLongSide: minimumLongSide)
        return try decode(data, scaleDenominator: denominator, maxPixels: maxPixels, strict: strict, limits: limits)
    }

    private static func checkSignature(_ data: [UInt8]) throws(ImageError) {
        guard !data.isEmpty else { throw .empty }
        switch ImageFormat.detect(data) {
        case .jpeg: return
        case .some(let other): throw .unsupportedFormat(other)
        case .none: throw .notAnImage
        }
    }
}

func cString(_ chars: [CChar]) -> String {
    let bytes = chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
