extension PixelBuffer {
    /// 3×5 bitmaps of the digits 0–9, one row per 3 bits (top row first).
    private static let digitGlyphs: [[UInt8]] = [
        [7, 5, 5, 5, 7], [2, 6, 2, 2, 7], [7, 1, 7, 4, 7], [7, 1, 7, 1, 7], [5, 5, 7, 1, 1],
        [7, 4, 7, 1, 7], [7, 4, 7, 5, 7], [7, 1, 1, 1, 1], [7, 5, 7, 5, 7], [7, 5, 7, 1, 7],
    ]

    /// Draws `number` centred on (`centerX`, `centerY`) in a filled label: digits `scale` pixels per
    /// glyph dot on a `background` box with a one-dot margin (clipped to the image).
    package mutating func drawNumberLabel(
        _ number: Int, centerX: Int, centerY: Int, scale: Int, color: (r: UInt8, g: UInt8, b: UInt8),
        background: (r: UInt8, g: UInt8, b: UInt8)
    ) {
        let digits = String(max(0, number)).compactMap { $0.wholeNumberValue }
        let dot = max(1, scale)
        let width = (digits.count * 4 + 1) * dot, height = 7 * dot
        let left = centerX - width / 2, top = centerY - height / 2
        fillRectangle(x: left, y: top, width: width, height: height, color: background)
        for (position, digit) in digits.enumerated() {
            let glyph = Self.digitGlyphs[digit]
            for (row, bits) in glyph.enumerated() {
                for column in 0..<3 where bits & (4 >> column) != 0 {
                    fillRectangle(
                        x: left + (1 + position * 4 + column) * dot, y: top + (1 + row) * dot, width: dot, height: dot, color: color)
                }
            }
        }
    }
}
