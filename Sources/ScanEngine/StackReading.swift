import ScanProtocol
import SpineReading

/// A photo whose spines gave (almost) no titles may be a horizontal stack seen close: books lying flat,
/// lettering across the photo, which the row and spine geometry cuts into slivers. It is read again text
/// first (`ShelfReader.readStack`), and that reading replaces the spines when it gives more titles.
struct StackReading: Sendable {
    /// Below this share of spines with a title, the photo is read again as a stack.
    static let titledShareBelow = 0.1

    /// Whether `spines` (read) ask for a second reading as a stack: lettering was read somewhere, but
    /// fewer than `titledShareBelow` of them gave a title. A photo with no lettering read at all (a blank
    /// test card, a shelf of plain boxes) is not read again.
    static func isWorthTrying(_ spines: [Spine]) -> Bool {
        let titled = spines.filter { $0.title != nil }.count
        return spines.contains { $0.text != nil } && Double(titled) < titledShareBelow * Double(max(1, spines.count))
    }

    /// The stack's books as spines (lying, one row, top to bottom), coloured from `thumbnail`.
    static func spines(_ books: [StackBook], thumbnail: ColorThumbnail) -> [Spine] {
        books.enumerated().map { i, book in
            Spine(
                index: i, row: 0, box: book.box, confidence: book.text.confidence, color: thumbnail.medianColor(in: book.box), pose: .lying,
                title: book.text.title, author: book.text.author, text: book.text.text,
                textConfidence: book.text.text == nil ? nil : book.text.confidence, orientation: book.text.orientation)
        }
    }
}

/// The working image shrunk to a few thousand pixels, kept past detection for the colours of books found
/// later (a stack's): 64 pixels on the long side hold 9 KB where the working image held megabytes.
struct ColorThumbnail: Sendable {
    let width: Int
    let height: Int
    /// R G B per pixel, rows top to bottom.
    let pixels: [UInt8]

    /// Pixels on the long side.
    static let longSide = 64

    init(_ image: WorkImage) {
        let step = max(1, (max(image.width, image.height) + Self.longSide - 1) / Self.longSide)
        let w = max(1, image.width / step), h = max(1, image.height / step)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = ((y * step + step / 2) * image.width + x * step + step / 2) * 3
                guard i + 2 < image.pixels.count else { continue }
                out[(y * w + x) * 3] = image.pixels[i]
                out[(y * w + x) * 3 + 1] = image.pixels[i + 1]
                out[(y * w + x) * 3 + 2] = image.pixels[i + 2]
            }
        }
        width = w
        height = h
        pixels = out
    }

    /// The median of each channel over the pixels inside `box` (the nearest pixel when it holds none).
    func medianColor(in box: NormalizedBox) -> RGBColor {
        let x0 = min(width - 1, max(0, Int(box.x * Double(width)))), y0 = min(height - 1, max(0, Int(box.y * Double(height))))
        let x1 = max(x0 + 1, min(width, Int(((box.x + box.width) * Double(width)).rounded(.up))))
        let y1 = max(y0 + 1, min(height, Int(((box.y + box.height) * Double(height)).rounded(.up))))
        var channels: [[UInt8]] = [[], [], []]
        for y in y0..<y1 {
            for x in x0..<x1 {
                for c in 0..<3 { channels[c].append(pixels[(y * width + x) * 3 + c]) }
            }
        }
        func median(_ values: [UInt8]) -> UInt8 {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
        return RGBColor(r: median(channels[0]), g: median(channels[1]), b: median(channels[2]))
    }
}
