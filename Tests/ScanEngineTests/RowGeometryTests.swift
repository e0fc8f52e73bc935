import Foundation
import Testing

@testable import ScanEngine

/// The lean of a row's verticals, fitted across the row.
@Suite("Fitting a row's verticals")
struct RowGeometryTests {
    /// A 600 × 300 photo: a dark back, a light board under the books (lines 250…299), upright books 20 columns wide
    /// in columns 0..<500 and, in the last sixth, books leaning by `lean` degrees.
    static func shelf(lean: Double) -> WorkImage {
        let w = 600, h = 300
        var pixels = [UInt8](repeating: 25, count: w * h * 3)
        let colours: [(UInt8, UInt8, UInt8)] = [(200, 60, 50), (60, 160, 80), (230, 210, 120), (50, 70, 190), (180, 180, 180)]
        let t = tan(lean * .pi / 180)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 3
                var colour: (UInt8, UInt8, UInt8)? = nil
                if y >= 250 {
                    colour = (150, 110, 70)
                } else if y >= 60 {
                    // Leaning books: their edges move by `t` columns per line upwards from the board.
                    let u = x >= 500 ? Double(x) - Double(250 - y) * t : Double(x)
                    if u >= 0 { colour = colours[(Int(u) / 20) % colours.count] }
                }
                if let colour { (pixels[i], pixels[i + 1], pixels[i + 2]) = colour }
            }
        }
        return WorkImage(width: w, height: h, pixels: pixels)
    }

    @Test("books leaning at one end of a row do not tilt the upright books' verticals")
    func leaningSlabIsLeftOut() throws {
        let image = Self.shelf(lean: -6)
        let finder = RowFinder(image: image)
        let fitter = RowGeometryFitter(finder: finder)
        let row = try #require(fitter.fitRows(finder.rowBands()).first)
        let gx = finder.gx.boxBlurred3()
        func angle(_ g: RowGeometry, at x: Double) -> Double { g.angle0 + g.angleSlope * (x - 300) }
        let fitted = fitter.fitVerticalAngles(row, smoothedGx: gx)
        for x in [50.0, 250, 450] {
            #expect(abs(angle(fitted, at: x)) <= 0.3, "at \(x): \(angle(fitted, at: x))°")
        }
        // Taking every slab, the leaning books tilt the upright ones.
        var credulous = fitter
        credulous.maxSlabResidual = .infinity
        let tilted = credulous.fitVerticalAngles(row, smoothedGx: gx)
        #expect(abs(angle(tilted, at: 450)) > 1, "at 450: \(angle(tilted, at: 450))°")
    }
}
