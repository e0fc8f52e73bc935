/// Progressive JPEG "scan bombs", written byte by byte: a huge declared size and many scans that each hold
/// almost no data, so a small file makes libjpeg allocate the whole coefficient buffer and walk every block of
/// the image once per scan (whatever the DCT scale). The progression is valid (no libjpeg warning): each
/// component's DC is sent once, then every AC coefficient on its own, 14 successive-approximation bits at a
/// time (first scan at Al 13, refinements down to Al 0), every scan one end-of-band run over all the blocks.
/// Pixels decode to mid-gray. At most `maxScans(components:)` scans: 883 for gray, 2649 for colour.
package enum ScanBombJPEG {
    /// The file: `width`×`height` (each at most 65535), 1 (gray) or 3 (YCbCr, no subsampling) components, `scans` scans;
    /// `arithmetic` marks the frame arithmetic-coded (SOF10) instead (refused from its header, never decoded).
    package static func make(width: Int, height: Int, components: Int = 1, scans: Int, arithmetic: Bool = false) -> [UInt8] {
        precondition((1...65535).contains(width) && (1...65535).contains(height), "a JPEG side is 1…65535")
        precondition(components == 1 || components == 3, "1 or 3 components")
        precondition((components...maxScans(components: components)).contains(scans), "\(components)…\(maxScans(components: components)) scans")
        var out: [UInt8] = [0xFF, 0xD8]
        out += segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))  // one quantisation table of 1s
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components)]
        for id in 1...components { frame += [UInt8(id), 0x11, 0x00] }
        out += segment(arithmetic ? 0xCA : 0xC2, frame)  // SOF10: progressive, arithmetic; SOF2: progressive, Huffman
        // DC table 0: one symbol (difference category 0), code "0". AC table 0: end-of-band runs EOB0…EOB14
        // (symbols 0x00, 0x10 … 0xE0), 4-bit codes 0…14, so EOBr is coded as r.
        out += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])
        out += segment(0xC4, [0x10, 0, 0, 0, 15] + [UInt8](repeating: 0, count: 12) + (0...14).map { UInt8($0 << 4) })
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        var written = 0
        for id in 1...components {
            out += segment(0xDA, [1, UInt8(id), 0x00, 0, 0, 0x00])
            out += dcScan(blocks: blocks)
            written += 1
        }
        coefficients: for k in 1...63 {
            for id in 1...components {
                for al in (0...13).reversed() {
                    guard written < scans else { break coefficients }
                    let ah = al == 13 ? 0 : al + 1
                    out += segment(0xDA, [1, UInt8(id), 0x00, UInt8(k), UInt8(k), UInt8(ah << 4 | al)])
                    out += endOfBandRun(blocks: blocks)
                    written += 1
                }
            }
        }
        return out + [0xFF, 0xD9]
    }

    /// A gray progressive JPEG whose DC scan is all bad Huffman codes (a corrupt-data warning at its first
    /// block) followed by a scan naming an AC table that does not exist (an error): a decoder that goes on
    /// after the warning reports the missing table; one that stops at the first warning reports the bad code.
    package static func warningThenError(width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        out += segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
        out += segment(0xC2, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0x00])
        out += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00])  // DC table 0: only the code "0"
        out += segment(0xDA, [1, 1, 0x00, 0, 0, 0x00])
        out += [UInt8](repeating: 0, count: 64).flatMap { _ in [0xFF, 0x00] as [UInt8] }  // "1" bits: no such code
        out += segment(0xDA, [1, 1, 0x01, 1, 1, 0x00])  // AC table 1: never defined
        out += [0x00, 0x00]
        return out + [0xFF, 0xD9]
    }

    /// The most scans `make` can write for `components` components.
    package static func maxScans(components: Int) -> Int { components * (1 + 63 * 14) }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// A DC first scan: every block's difference is 0, one "0" bit each.
    private static func dcScan(blocks: Int) -> [UInt8] {
        var bits = EntropyBits()
        bits.appendZeros(blocks)
        return bits.finished()
    }

    /// One AC scan: end-of-band runs of at most 32767 blocks (EOB14 + 14 bits) covering all `blocks`.
    private static func endOfBandRun(blocks: Int) -> [UInt8] {
        var bits = EntropyBits()
        var left = blocks
        while left > 0 {
            let run = min(left, 32767)
            let r = Int.bitWidth - 1 - run.leadingZeroBitCount  // 2^r ≤ run < 2^(r+1)
            bits.append(r, count: 4)
            bits.append(run - (1 << r), count: r)
            left -= run
        }
        return bits.finished()
    }
}

/// Entropy-coded bits, most significant first, with 0xFF bytes stuffed (0xFF 0x00) as JPEG requires.
private struct EntropyBits {
    private var bytes: [UInt8] = []
    private var pending: UInt32 = 0
    private var pendingCount = 0

    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            pending = pending << 1 | UInt32((value >> shift) & 1)
            pendingCount += 1
            if pendingCount == 8 { flushByte() }
        }
    }

    mutating func appendZeros(_ count: Int) {
        var left = count
        while left > 0, pendingCount != 0 {
            append(0, count: 1)
            left -= 1
        }
        bytes += [UInt8](repeating: 0, count: left / 8)
        append(0, count: left % 8)
    }

    /// The bytes, the last one padded with 1 bits.
    mutating func finished() -> [UInt8] {
        if pendingCount > 0 { append(0xFF, count: 8 - pendingCount) }
        return bytes
    }

    private mutating func flushByte() {
        let byte = UInt8(pending & 0xFF)
        bytes.append(byte)
        if byte == 0xFF { bytes.append(0x00) }
        pending = 0
        pendingCount = 0
    }
}
