/// The EXIF orientation tag (0x0112): how the stored pixels must be turned to look upright.
package enum EXIFOrientation: Int, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether applying the orientation swaps width and height.
    package var swapsDimensions: Bool { rawValue >= 5 }

    /// Reads the orientation from a JPEG's APP1 Exif segment; `.up` when there is none or it is malformed.
    package static func read(fromJPEG data: [UInt8]) -> EXIFOrientation {
        var offset = 2  // after SOI
        while offset + 4 <= data.count {
            guard data[offset] == 0xFF else { return .up }
            let marker = data[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return .up }  // image data starts: no more metadata
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            guard length >= 2, offset + 2 + length <= data.count else { return .up }
            if marker == 0xE1, let value = orientation(inExif: data[(offset + 4)..<(offset + 2 + length)]) {
                return value
            }
            offset += 2 + length
        }
        return .up
    }

    private static func orientation(inExif segment: ArraySlice<UInt8>) -> EXIFOrientation? {
        let bytes = Array(segment)
        guard bytes.count >= 14, Array(bytes[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] else { return nil }
        let tiff = Array(bytes[6...])
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return littleEndian ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return littleEndian ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd), count < 1024 else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let value = u16(at + 8) {
                return EXIFOrientation(rawValue: value)
            }
        }
        return nil
    }
}

extension PixelBuffer {
    /// The image turned so that it looks upright, per the EXIF orientation.
    package func applying(_ orientation: EXIFOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let outWidth = orientation.swapsDimensions ? height : width
        let outHeight = orientation.swapsDimensions ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        let w = width, h = height
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // (sx, sy): the stored pixel that lands at (x, y)
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let s = (sy * w + sx) * 3, d = (y * outWidth + x) * 3
                        dst[d] = src[s]
                        dst[d + 1] = src[s + 1]
                        dst[d + 2] = src[s + 2]
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, pixels: out) ?? self
    }
}
