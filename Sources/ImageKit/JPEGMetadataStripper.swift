/// Copies a JPEG's compressed image data without its metadata, byte for byte and without decoding:
/// the pixels a decoder gets are exactly the original's. Kept: the frame, scan, Huffman, quantisation,
/// restart and arithmetic-coding segments, the JFIF header (APP0 "JFIF") and Adobe's colour-transform
/// flag (APP14 "Adobe", which decides how the components decode). Dropped: Exif (camera, GPS), XMP,
/// IPTC, ICC profiles, MPF previews, comments, every other APPn and anything after the end-of-image
/// marker (some phones append a second photo there). A non-upright EXIF orientation comes back as a
/// one-tag Exif segment, so a viewer or the scan service still turns the photo upright.
package enum JPEGMetadataStripper {
    /// The stripped copy, or nil when `data` is not a well-formed marker sequence (SOI … SOS … EOI).
    package static func stripped(_ data: [UInt8], keeping orientation: EXIFOrientation) -> [UInt8]? {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(data.count)
        var offset = 2
        var orientationWritten = orientation == .up
        var sawFrame = false, sawScan = false
        while offset + 1 < data.count {
            guard data[offset] == 0xFF else { return nil }
            let marker = data[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte before a marker
            if marker == 0xD9 {
                guard sawFrame, sawScan else { return nil }
                out += [0xFF, 0xD9]
                return out
            }
            guard marker != 0xD8, marker != 0x01, !(0xD0...0xD7).contains(marker), offset + 4 <= data.count else { return nil }
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            let end = offset + 2 + length
            guard length >= 2, end <= data.count else { return nil }
            let segment = data[offset..<end]
            if marker == 0xE0, isJFIF(data, at: offset + 4, end: end) {
                out += segment
            } else if Self.keeps(marker) || (marker == 0xEE && startsWith(data, at: offset + 4, end: end, "Adobe")) {
                if !orientationWritten {
                    out += exifSegment(orientation)
                    orientationWritten = true
                }
                out += segment
            }
            sawFrame = sawFrame || Self.isFrame(marker)
            offset = end
            if marker == 0xDA {
                guard sawFrame else { return nil }
                sawScan = true
                // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart.
                var cursor = offset
                while cursor + 1 < data.count {
                    if data[cursor] == 0xFF, data[cursor + 1] != 0x00, !(0xD0...0xD7).contains(data[cursor + 1]), data[cursor + 1] != 0xFF {
                        break
                    }
                    cursor += 1
                }
                guard cursor + 1 < data.count else { return nil }  // no end-of-image marker: truncated
                out += data[offset..<cursor]
                offset = cursor
            }
        }
        return nil
    }

    /// Frame headers (SOF0–SOF15 but DHT 0xC4, JPG 0xC8 and DAC 0xCC).
    private static func isFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// Segments a decoder needs: frames, DHT, DAC, SOS, DQT, DNL, DRI, DHP, EXP.
    private static func keeps(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) || (0xDA...0xDF).contains(marker)
    }

    private static func isJFIF(_ data: [UInt8], at start: Int, end: Int) -> Bool {
        startsWith(data, at: start, end: end, "JFIF\0") || startsWith(data, at: start, end: end, "JFXX\0")
    }

    private static func startsWith(_ data: [UInt8], at start: Int, end: Int, _ prefix: String) -> Bool {
        let bytes = Array(prefix.utf8)
        return end - start >= bytes.count && Array(data[start..<(start + bytes.count)]) == bytes
    }

    /// APP1 "Exif" holding one big-endian IFD with the orientation tag (0x0112, SHORT) only.
    package static func exifSegment(_ orientation: EXIFOrientation) -> [UInt8] {
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // "MM", 42, first IFD at 8
            0x00, 0x01,  // one entry
            0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation.rawValue), 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00,  // no next IFD
        ]
        let body: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] + tiff
        let length = body.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }
}
