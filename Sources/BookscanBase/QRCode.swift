/// A QR code (ISO/IEC 18004) of some bytes, for `serve`'s banner: byte mode, error correction
/// level L or M, the smallest version 1…10 that holds the data, Reed–Solomon over GF(256), and the
/// mask of the lowest penalty. `modules[y][x]` is true for a dark module; no quiet zone.
/// The construction follows the standard's order: function patterns, codewords in the zigzag,
/// mask, format and version information (layout as in Project Nayuki's reference encoder).
package struct QRCode: Equatable {
    /// Error correction level: the share of codewords that may be lost (L about 7 %, M about 15 %).
    package enum Level: CaseIterable {
        case low, medium

        /// The two format bits of the level.
        var formatBits: Int { self == .low ? 1 : 0 }
    }

    /// Why some bytes cannot be a QR code of versions 1…10.
    package enum EncodingError: Error, Equatable {
        case tooLong(bytes: Int, maximum: Int)
    }

    package let version: Int
    package let level: Level
    package private(set) var mask: Int
    package private(set) var modules: [[Bool]]
    /// Modules of the function patterns (finders, timing, alignment, format, version), never masked.
    private var isFunction: [[Bool]]

    /// Side length in modules.
    package var size: Int { modules.count }

    /// The versions this encoder makes.
    package static let versions = 1...10

    /// Encodes `bytes` at the smallest version that holds them; `mask` pins a mask (tests), else the best is chosen.
    package init(bytes: [UInt8], level: Level = .medium, mask: Int? = nil) throws {
        guard let version = Self.smallestVersion(holding: bytes.count, level: level) else {
            let maximum = Self.dataCodewords(Self.versions.upperBound, level) - 3
            throw EncodingError.tooLong(bytes: bytes.count, maximum: maximum)
        }
        let codewords = Self.interleaved(Self.dataCodewords(for: bytes, version: version, level: level), version: version, level: level)
        var base = QRCode(version: version, level: level)
        base.drawCodewords(codewords)
        let candidates = mask.map { [$0] } ?? Array(0..<8)
        var best: QRCode?
        var bestPenalty = Int.max
        for candidate in candidates {
            var code = base
            code.apply(mask: candidate)
            code.drawFormat(mask: candidate)
            let penalty = code.penalty
            if penalty < bestPenalty {
                bestPenalty = penalty
                best = code
            }
        }
        self = best ?? base
    }

    /// Encodes text as its UTF-8 bytes.
    package init(text: String, level: Level = .medium) throws {
        try self.init(bytes: Array(text.utf8), level: level)
    }

    /// The function patterns of `version`, codewords still empty.
    private init(version: Int, level: Level) {
        self.version = version
        self.level = level
        self.mask = 0
        let size = version * 4 + 17
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        isFunction = modules
        drawFunctionPatterns()
    }

    // MARK: data

    /// The smallest version that holds `count` bytes at `level`, nil when none of 1…10 does.
    package static func smallestVersion(holding count: Int, level: Level) -> Int? {
        versions.first { dataBitsNeeded(count, version: $0) <= dataCodewords($0, level) * 8 }
    }

    /// Bits of mode, count and data (the character count is 8 bits below version 10, 16 from it).
    private static func dataBitsNeeded(_ count: Int, version: Int) -> Int { 4 + (version < 10 ? 8 : 16) + count * 8 }

    /// The data codewords: mode 0100, count, bytes, terminator, padding to a byte, then 0xEC 0x11 alternating.
    private static func dataCodewords(for bytes: [UInt8], version: Int, level: Level) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, version < 10 ? 8 : 16)
        for byte in bytes { append(Int(byte), 8) }
        let capacity = dataCodewords(version, level) * 8
        append(0, min(4, capacity - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The blocks of a version and level: (error correction codewords per block, data codewords of each block).
    package static func blocks(_ version: Int, _ level: Level) -> (ecPerBlock: Int, data: [Int]) {
        // ISO/IEC 18004 table 9, versions 1…10: (ec per block, [(blocks, data codewords each)]).
        let table: [(low: (Int, [(Int, Int)]), medium: (Int, [(Int, Int)]))] = [
            ((7, [(1, 19)]), (10, [(1, 16)])),
            ((10, [(1, 34)]), (16, [(1, 28)])),
            ((15, [(1, 55)]), (26, [(1, 44)])),
            ((20, [(1, 80)]), (18, [(2, 32)])),
            ((26, [(1, 108)]), (24, [(2, 43)])),
            ((18, [(2, 68)]), (16, [(4, 27)])),
            ((20, [(2, 78)]), (18, [(4, 31)])),
            ((24, [(2, 97)]), (22, [(2, 38), (2, 39)])),
            ((30, [(2, 116)]), (22, [(3, 36), (2, 37)])),
            ((18, [(2, 68), (2, 69)]), (26, [(4, 43), (1, 44)])),
        ]
        let row = table[version - 1]
        let (ec, groups) = level == .low ? row.low : row.medium
        return (ec, groups.flatMap { Array(repeating: $0.1, count: $0.0) })
    }

    /// Data codewords a version and level hold.
    package static func dataCodewords(_ version: Int, _ level: Level) -> Int { blocks(version, level).data.reduce(0, +) }

    /// Splits the data into blocks, appends each block's Reed–Solomon codewords, and interleaves:
    /// the data column by column across blocks, then the error correction likewise.
    private static func interleaved(_ data: [UInt8], version: Int, level: Level) -> [UInt8] {
        let (ecCount, sizes) = blocks(version, level)
        let generator = ReedSolomon.generator(degree: ecCount)
        var dataBlocks: [[UInt8]] = []
        var start = 0
        for size in sizes {
            dataBlocks.append(Array(data[start..<start + size]))
            start += size
        }
        let ecBlocks = dataBlocks.map { ReedSolomon.remainder($0, generator: generator) }
        var result: [UInt8] = []
        for i in 0..<(sizes.max() ?? 0) {
            for block in dataBlocks where i < block.count { result.append(block[i]) }
        }
        for i in 0..<ecCount {
            for block in ecBlocks { result.append(block[i]) }
        }
        return result
    }

    // MARK: function patterns

    private mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    private mutating func drawFunctionPatterns() {
        for i in 0..<size {
            setFunction(6, i, i % 2 == 0)
            setFunction(i, 6, i % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let distance = max(abs(dx), abs(dy))
                    setFunction(x + dx, y + dy, distance != 2 && distance != 4)
                }
            }
        }
        let positions = Self.alignmentPositions(version)
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let last = positions.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormat(mask: 0)  // reserves the format areas; drawn again with the chosen mask
        if version >= 7 {
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = size - 11 + i % 3, b = i / 3
                setFunction(a, b, dark)
                setFunction(b, a, dark)
            }
        }
    }

    /// Centres of the alignment patterns along each axis (ISO/IEC 18004 annex E), versions 1…10.
    package static func alignmentPositions(_ version: Int) -> [Int] {
        let table: [[Int]] = [[], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]]
        return table[version - 1]
    }

    /// The 15 format bits (level, mask, BCH code, XOR 0x5412) in both copies, and the dark module.
    private mutating func drawFormat(mask: Int) {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { setFunction(8, i, bit(i)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for i in 9..<15 { setFunction(14 - i, 8, bit(i)) }
        for i in 0..<8 { setFunction(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { setFunction(8, size - 15 + i, bit(i)) }
        setFunction(8, size - 8, true)
    }

    // MARK: codewords and masks

    /// Places the codewords' bits in the zigzag: two columns at a time from the right, up then down,
    /// skipping the vertical timing column and every function module.
    private mutating func drawCodewords(_ codewords: [UInt8]) {
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !isFunction[y][x], index < codewords.count * 8 else { continue }
                    modules[y][x] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    /// Whether mask `mask` flips the module in row `y`, column `x`.
    package static func masks(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    private mutating func apply(mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y][x] && Self.masks(mask, x: x, y: y) { modules[y][x].toggle() }
        }
        self.mask = mask
    }

    /// The standard's penalty: runs of 5+ (3 + extra), 2×2 blocks (3), finder-like 1:1:3:1:1 runs with
    /// 4 light beside (40), and the dark share's distance from half (10 per 5 %).
    package var penalty: Int {
        var total = 0
        let lines = modules + (0..<size).map { x in modules.map { $0[x] } }
        let finder: [Bool] = [true, false, true, true, true, false, true]
        let light = [Bool](repeating: false, count: 4)
        for line in lines {
            var run = 1
            for i in 1..<line.count {
                if line[i] == line[i - 1] {
                    run += 1
                } else {
                    if run >= 5 { total += 3 + run - 5 }
                    run = 1
                }
            }
            if run >= 5 { total += 3 + run - 5 }
            for start in 0...(line.count - 11) {
                let window = Array(line[start..<start + 11])
                if window == finder + light || window == light + finder { total += 40 }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) where modules[y][x] == modules[y][x + 1] && modules[y][x] == modules[y + 1][x] && modules[y][x] == modules[y + 1][x + 1] {
                total += 3
            }
        }
        let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
        total += abs(dark * 20 - size * size * 10) / (size * size) * 10
        return total
    }
}
