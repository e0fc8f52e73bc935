import Foundation
import ImageKit
import ScanProtocol
import Testing

@testable import SpineReading

/// Titles from the whole photo's text lines (`LineTitles`) and where `PhotoLineReader` places them.
struct LineTitlesTests {
    /// A standing spine from x0 to x1 (fractions of the width), the whole height of the photo.
    static func standing(_ x0: Double, _ x1: Double) -> SpineOutline {
        SpineOutline(
            box: NormalizedBox(x: x0, y: 0.1, width: x1 - x0, height: 0.8), pose: .upright,
            polygon: [.init(x: x0, y: 0.1), .init(x: x1, y: 0.1), .init(x: x1, y: 0.9), .init(x: x0, y: 0.9)])
    }

    static func line(
        _ text: String, at x: Double, y: Double = 0.5, thickness: Double = 20, confidence: Double = 0.95,
        orientation: TextOrientation = .verticalTopToBottom
    ) -> PhotoLine {
        PhotoLine(text: text, confidence: confidence, center: NormalizedPoint(x: x, y: y), thickness: thickness, orientation: orientation)
    }

    @Test("a spine without a title takes the thickest line on it that can be a title; titled spines keep theirs")
    func fills() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        let spines = [Self.standing(0, 0.2), Self.standing(0.2, 0.4), Self.standing(0.4, 0.6), Self.standing(0.6, 0.8), Self.standing(0.8, 1)]
        let titled = SpineText(title: "THE HOBBIT", author: nil, text: "THE HOBBIT", confidence: 0.9, orientation: .verticalTopToBottom)
        let texts = [SpineText.unread, titled, .unread, .unread, .unread]
        let lines = [
            // Spine 0: the title, larger than the author's name and a subtitle beside it.
            Self.line("A ZOO IN MY LUGGAGE", at: 0.1, y: 0.3, thickness: 30), Self.line("GERALD DURRELL", at: 0.1, y: 0.7, thickness: 34),
            Self.line("an animal adventure", at: 0.12, y: 0.5, thickness: 12),
            // Spine 1 already has a title.
            Self.line("THE SILMARILLION", at: 0.3),
            // Spine 2: only a call number, an edition line, two names and a misreading.
            Self.line("DS 361 A7", at: 0.5, y: 0.2), Self.line("SECOND EDITION", at: 0.5, y: 0.4),
            Self.line("Abelson and Sussman", at: 0.5, y: 0.6), Self.line("GERAMIG PROGESSING", at: 0.5, y: 0.8),
            // Spine 3: a title read unsurely, and one running across the spine (a lying book's or a sticker's).
            Self.line("EXIT WEST", at: 0.7, y: 0.3, confidence: 0.5), Self.line("WAR AND PEACE", at: 0.7, y: 0.6, orientation: .horizontal),
            // Spine 4: read bottom to top.
            Self.line("Business Stripped Bare", at: 0.9, orientation: .verticalBottomToTop),
        ]
        let filled = LineTitles(tuning: ReadingTuning()).filled(texts, spines: spines, lines: lines, lexicon: lexicon)
        #expect(filled.map(\.title) == ["A ZOO IN MY LUGGAGE", "THE HOBBIT", nil, nil, "Business Stripped Bare"])
        #expect(filled[0].orientation == .verticalTopToBottom && filled[0].confidence == 0.95)
        #expect(filled[4].orientation == .verticalBottomToTop)
        #expect(filled[1] == titled)
        #expect(filled[2] == .unread && filled[3] == .unread)
    }

    @Test("a surely read line with one rare word titles a spine without one or a name read in the title's place, never displaces a title")
    func rareWord() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        let spines = (0..<7).map { Self.standing(Double($0) / 7, Double($0 + 1) / 7) }
        func at(_ i: Int) -> Double { (Double(i) + 0.5) / 7 }
        let read = { (title: String) in SpineText(title: title, author: nil, text: title, confidence: 0.9, orientation: .verticalTopToBottom) }
        let texts = [.unread, .unread, .unread, .unread, read("Michel Biron"), read("WAR AND PEACE"), .unread]
        let lines = [
            // 0: one rare word beside ordinary ones, read surely.
            Self.line("Thermosets and Composites", at: at(0), confidence: 0.99),
            // 1: the same read less surely.
            Self.line("Thermosets and Composites", at: at(1), confidence: 0.9),
            // 2: the rare word is a name glued together, or the line a credit.
            Self.line("FRANKENSTEIN MARYSHELLEY", at: at(2), y: 0.3, confidence: 0.99),
            Self.line("BY RUSSELL HOLMESBY", at: at(2), y: 0.7, thickness: 18, confidence: 0.99),
            // 3: two rare words; a rare word with a digit in it.
            Self.line("GERAMIG PROGESSING", at: at(3), y: 0.3, confidence: 0.99),
            Self.line("THE 5OBOOKZ GUIDE", at: at(3), y: 0.7, thickness: 18, confidence: 0.99),
            // 4: a name was read in the title's place.
            Self.line("Thermosets and Composites", at: at(4), y: 0.3, confidence: 0.99), Self.line("Michel Biron", at: at(4), y: 0.7),
            // 5: a title was read; the line holds it and a rare word.
            Self.line("TOLSTOY WAR AND PEACE", at: at(5), confidence: 0.99),
            // 6: a rare word beside a connective alone.
            Self.line("THE DIGRAPHS", at: at(6), confidence: 0.99),
        ]
        let filled = LineTitles(tuning: ReadingTuning()).filled(texts, spines: spines, lines: lines, lexicon: lexicon)
        #expect(filled.map(\.title) == ["Thermosets and Composites", nil, nil, nil, "Thermosets and Composites", "WAR AND PEACE", nil])
        #expect(LineTitles.isGluedName("MARYSHELLEY") && LineTitles.isGluedName("SUSANHILL"))
        #expect(!LineTitles.isGluedName("Thermosets") && !LineTitles.isGluedName("DIGRAPHS") && !LineTitles.isGluedName("MARYSE"))
    }

    @Test("a title read crop by crop gives way when it is a name or a part of a line's title, not to a part of itself")
    func givingWay() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        #expect(LineTitles.givesWay("The Fall", to: "The Fall of Afghanistan", lexicon: lexicon))
        #expect(LineTitles.givesWay("BOB WOOLMER", to: "ON BATTING", lexicon: lexicon))
        #expect(LineTitles.givesWay("Abelson and Sussman", to: "Structure and Interpretation", lexicon: lexicon))
        #expect(!LineTitles.givesWay("Michel Biron", to: "Mil Bron", lexicon: lexicon))  // the name misread
        #expect(!LineTitles.givesWay("The Fall of Afghanistan", to: "The Fall", lexicon: lexicon))
        #expect(!LineTitles.givesWay("EXIT WEST", to: "EXIT WEST", lexicon: lexicon))
        #expect(!LineTitles.givesWay("HEART OF DARKNESS", to: "ART OF WAR", lexicon: lexicon))
        // In the engine: spine 0's name gives way to the line's title; spine 1's whole title stays.
        let spines = [Self.standing(0, 0.5), Self.standing(0.5, 1)]
        let texts = [
            SpineText(title: "GERALD DURRELL", author: nil, text: "GERALD DURRELL", confidence: 0.9, orientation: .verticalTopToBottom),
            SpineText(title: "A ZOO IN MY LUGGAGE", author: nil, text: "A ZOO IN MY LUGGAGE", confidence: 0.9, orientation: .verticalTopToBottom),
        ]
        let lines = [Self.line("MY FAMILY AND OTHER ANIMALS", at: 0.25), Self.line("IN MY LUGGAGE", at: 0.75)]
        let filled = LineTitles(tuning: ReadingTuning()).filled(texts, spines: spines, lines: lines, lexicon: lexicon)
        #expect(filled.map(\.title) == ["MY FAMILY AND OTHER ANIMALS", "A ZOO IN MY LUGGAGE"])
    }

    @Test("a spine no line of two words can title takes its thickest line when that is one surely read word of six letters or more")
    func oneWord() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        let reader = LineTitles(tuning: ReadingTuning())
        func filled(_ lines: [PhotoLine], title: String? = nil) -> SpineText? {
            let read = title.map { SpineText(title: $0, author: nil, text: $0, confidence: 0.9, orientation: .verticalTopToBottom) } ?? .unread
            return reader.filled([read], spines: [Self.standing(0, 1)], lines: lines, lexicon: lexicon).first
        }
        #expect(filled([Self.line("NEUROMANCER", at: 0.5, y: 0.3, thickness: 45, confidence: 0.99), Self.line("GIBSON", at: 0.5, y: 0.7, thickness: 30)])?.title == "NEUROMANCER")
        // Not the thickest, read unsurely, short, marked, an edition or a given name alone: no title.
        #expect(filled([Self.line("NEUROMANCER", at: 0.5, y: 0.3, thickness: 30, confidence: 0.99), Self.line("Gibson", at: 0.5, y: 0.7, thickness: 45, confidence: 0.5)])?.title == nil)
        #expect(filled([Self.line("NEUROMANCER", at: 0.5, thickness: 45, confidence: 0.9)])?.title == nil)
        #expect(filled([Self.line("HAAFF", at: 0.5, thickness: 45, confidence: 0.99)])?.title == nil)
        #expect(filled([Self.line("FALCONGUIDES°", at: 0.5, thickness: 45, confidence: 0.99)])?.title == nil)
        #expect(filled([Self.line("EDITION", at: 0.5, thickness: 45, confidence: 0.99)])?.title == nil)
        #expect(filled([Self.line("WILLIAM", at: 0.5, thickness: 45, confidence: 0.99)])?.title == nil)
        #expect(filled([Self.line("QA 76.9", at: 0.5, thickness: 45, confidence: 0.99)])?.title == nil)
        // A line of two words or more that can be a title comes first, however thin.
        #expect(filled([Self.line("NEUROMANCER", at: 0.5, y: 0.3, thickness: 45, confidence: 0.99), Self.line("COUNT ZERO", at: 0.5, y: 0.7, thickness: 20)])?.title == "COUNT ZERO")
        // A titled spine does not take it, unless its title is withdrawn (a piece of a name).
        #expect(filled([Self.line("NEUROMANCER", at: 0.5, thickness: 45, confidence: 0.99)], title: "COUNT ZERO")?.title == "COUNT ZERO")
        #expect(
            filled([Self.line("NEUROMANCER", at: 0.5, y: 0.3, thickness: 45, confidence: 0.99), Self.line("WILLIAM GIBSON", at: 0.5, y: 0.7, thickness: 44)], title: "WILLIAM")?
                .title == "NEUROMANCER")
    }

    @Test("two lines of one title, alike in size, one right under the other, are read as one; an author's smaller line is not")
    func twoLines() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        let spine = Self.standing(0, 1)
        func line(_ text: String, middle: Double, thickness: Double, start: Double = 100, end: Double = 400) -> PhotoLine {
            PhotoLine(
                text: text, confidence: 0.95, center: NormalizedPoint(x: 0.5, y: 0.5), thickness: thickness, orientation: .verticalTopToBottom,
                start: start, end: end, middle: middle)
        }
        let title = [line("THE VICAR", middle: 100, thickness: 30), line("OF WAKEFIELD", middle: 140, thickness: 28)]
        let author = line("OLIVER GOLDSMITH", middle: 175, thickness: 14)
        var filled = LineTitles(tuning: ReadingTuning()).filled([.unread], spines: [spine], lines: title + [author], lexicon: lexicon)
        #expect(filled.first?.title == "THE VICAR OF WAKEFIELD")
        // Far apart across the spine, or not side by side along it: two lines, the thicker given.
        let apart = [line("THE VICAR", middle: 100, thickness: 30), line("OF WAKEFIELD", middle: 300, thickness: 28)]
        filled = LineTitles(tuning: ReadingTuning()).filled([.unread], spines: [spine], lines: apart, lexicon: lexicon)
        #expect(filled.first?.title == "THE VICAR")
        let offset = [line("THE VICAR", middle: 100, thickness: 30, end: 200), line("OF WAKEFIELD", middle: 140, thickness: 28, start: 300, end: 500)]
        filled = LineTitles(tuning: ReadingTuning()).filled([.unread], spines: [spine], lines: offset, lexicon: lexicon)
        #expect(filled.first?.title == "THE VICAR")
    }

    @Test("a title read crop by crop that ran on into a thinner line of its own is cut to the line's title; one title on two lines stays whole")
    func leadingPart() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        let spine = Self.standing(0, 1)
        func line(_ text: String, middle: Double, thickness: Double) -> PhotoLine {
            PhotoLine(
                text: text, confidence: 0.95, center: NormalizedPoint(x: 0.5, y: 0.5), thickness: thickness, orientation: .verticalTopToBottom,
                start: 100, end: 400, middle: middle)
        }
        func read(_ title: String) -> SpineText {
            SpineText(title: title, author: nil, text: title, confidence: 0.9, orientation: .verticalTopToBottom)
        }
        let reader = LineTitles(tuning: ReadingTuning())
        // The subtitle is a thinner line of its own, far from the title's.
        var lines = [line("Polymer Fiber Optics", middle: 100, thickness: 34), line("Materials, Physics, and Applications", middle: 300, thickness: 28)]
        var filled = reader.filled([read("Polymer Fiber Optics Materials, Physics, and Applications")], spines: [spine], lines: lines, lexicon: lexicon)
        #expect(filled.first?.title == "Polymer Fiber Optics")
        // The rest begins with a connective: one title ("OF TEST CRICKETERS").
        lines = [line("THE COMPLETE WHO'S WHO", middle: 100, thickness: 34), line("OF TEST CRICKETERS", middle: 300, thickness: 20)]
        filled = reader.filled([read("THE COMPLETE WHO'S WHO OF TEST CRICKETERS")], spines: [spine], lines: lines, lexicon: lexicon)
        #expect(filled.first?.title == "THE COMPLETE WHO'S WHO OF TEST CRICKETERS")
        // The rest in lettering as large as the title's: one title on two lines.
        lines = [line("THE OLD CURIOSITY", middle: 100, thickness: 34), line("SHOP", middle: 300, thickness: 33)]
        filled = reader.filled([read("THE OLD CURIOSITY SHOP")], spines: [spine], lines: lines, lexicon: lexicon)
        #expect(filled.first?.title == "THE OLD CURIOSITY SHOP")
        // No line reads as the rest: the title stays.
        lines = [line("Polymer Fiber Optics", middle: 100, thickness: 34)]
        filled = reader.filled([read("Polymer Fiber Optics Materials, Physics, and Applications")], spines: [spine], lines: lines, lexicon: lexicon)
        #expect(filled.first?.title == "Polymer Fiber Optics Materials, Physics, and Applications")
        #expect(!LineTitles.isLeadingPart("Polymer Fiber", of: "Polymer Fiber", line: lines[0], lines: lines))
        // A rest of one word: a title's last word set smaller on a line of its own.
        lines = [line("THE TIME", middle: 100, thickness: 34), line("MACHINE", middle: 300, thickness: 24)]
        filled = reader.filled([read("THE TIME MACHINE")], spines: [spine], lines: lines, lexicon: lexicon)
        #expect(filled.first?.title == "THE TIME MACHINE")
    }

    @Test("a lying book takes lines that run across the photo, not up or down it")
    func lying() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        let book = SpineOutline(box: NormalizedBox(x: 0.1, y: 0.4, width: 0.8, height: 0.1), pose: .lying)
        let lines = [Self.line("EXIT WEST", at: 0.5, y: 0.45), Self.line("WAR AND PEACE", at: 0.5, y: 0.45, orientation: .horizontal)]
        let filled = LineTitles(tuning: ReadingTuning()).filled([.unread], spines: [book], lines: lines, lexicon: lexicon)
        #expect(filled.first?.title == "WAR AND PEACE")
        #expect(filled.first?.orientation == .horizontal)
    }

    @Test("a line read on the turned photo is placed where it is on the upright photo")
    func placing() throws {
        // A 4×3 photo with one dark pixel at (3, 0): wherever a turn puts it, the line found there maps back.
        var pixels = [UInt8](repeating: 255, count: 12)
        pixels[3] = 0
        let photo = try #require(GrayImage(width: 4, height: 3, pixels: pixels))
        for orientation in [TextOrientation.verticalTopToBottom, .verticalBottomToTop, .horizontal] {
            let turned =
                orientation == .verticalTopToBottom
                ? photo.turnedCounterClockwise() : orientation == .verticalBottomToTop ? photo.turnedClockwise() : photo
            let index = try #require(turned.pixels.firstIndex(of: 0))
            let u = Double(index % turned.width) + 0.5, v = Double(index / turned.width) + 0.5
            let corners = [(x: u - 0.5, y: v - 0.5), (x: u + 0.5, y: v - 0.5), (x: u + 0.5, y: v + 0.5), (x: u - 0.5, y: v + 0.5)]
            let line = PPOCRTextLine(text: "X", confidence: 1, left: 0, top: 0, width: 1, height: 1, corners: corners)
            let placed = PhotoLineReader.line(line, turned: orientation, photoWidth: 4, photoHeight: 3)
            #expect(abs(placed.center.x * 4 - 3.5) < 1e-9 && abs(placed.center.y * 3 - 0.5) < 1e-9, "\(orientation)")
        }
        #expect(photo.turnedCounterClockwise().turnedClockwise() == photo)
        #expect(photo.turnedClockwise().width == 3 && photo.turnedClockwise().height == 4)
    }

    @Test("a standing line cut out onto the sheet is the photo's box turned each way")
    func sheet() throws {
        // A 5×6 photo of distinct pixels; the box is columns 1..<4, rows 1..<5 (3 wide, 4 tall).
        let photo = try #require(GrayImage(width: 5, height: 6, pixels: (0..<30).map { UInt8($0 * 7) }))
        let box = LineSheet.Quad(left: 1, top: 1, right: 4, bottom: 5)
        let cut = LineSheet.Cut(quad: box, orientations: [.verticalTopToBottom, .verticalBottomToTop, .horizontal])
        let sheet = try #require(LineSheet(photo, cuts: [cut]))
        #expect(sheet.regions.map(\.orientation) == [.verticalTopToBottom, .verticalBottomToTop])
        var inBox: [UInt8] = []
        for y in 1..<5 { for x in 1..<4 { inBox.append(photo.pixels[y * 5 + x]) } }
        let crop = try #require(GrayImage(width: 3, height: 4, pixels: inBox))
        for (region, turned) in zip(sheet.regions, [crop.turnedCounterClockwise(), crop.turnedClockwise()]) {
            #expect(region.width == 4 && region.height == 3 && sheet.width == 4)
            var read: [UInt8] = []
            for v in 0..<region.height { for u in 0..<region.width { read.append(sheet.rgb[3 * ((region.top + v) * sheet.width + u) + 1]) } }
            #expect(read == turned.pixels, "\(region.orientation)")
        }
        #expect(LineSheet(photo, cuts: []) == nil)
    }

    @Test("a slanted line is cut out along its own axis: its lettering comes out level")
    func slantedCut() throws {
        // A 60×60 photo, white, with a dark bar 4 pixels thick standing along a line leaning 10° from the columns.
        let angle = 10.0 * Double.pi / 180, size = 60
        let centre = LineSheet.Point(x: 30, y: 30)
        let along = LineSheet.Point(x: -sin(angle), y: cos(angle)), across = LineSheet.Point(x: cos(angle), y: sin(angle))
        var pixels = [UInt8](repeating: 255, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let dx = Double(x) + 0.5 - centre.x, dy = Double(y) + 0.5 - centre.y
                if abs(dx * across.x + dy * across.y) <= 2, abs(dx * along.x + dy * along.y) <= 20 { pixels[y * size + x] = 0 }
            }
        }
        let photo = try #require(GrayImage(width: size, height: size, pixels: pixels))
        // The line's quad, 40 long and 12 thick, in reading order top to bottom (corner 0 top right, along the bar).
        func corner(_ a: Double, _ b: Double) -> LineSheet.Point {
            LineSheet.Point(x: centre.x + a * along.x - b * across.x, y: centre.y + a * along.y - b * across.y)
        }
        let quad = LineSheet.Quad(corners: [corner(-20, -6), corner(20, -6), corner(20, 6), corner(-20, 6)])
        #expect(!quad.isUpright && abs(quad.length - 40) < 1e-9 && abs(quad.thickness - 12) < 1e-9)
        #expect(LineSheet.Quad(left: 1, top: 1, right: 4, bottom: 5).isUpright)
        let sheet = try #require(LineSheet(photo, cuts: [LineSheet.Cut(quad: quad, orientations: [.verticalTopToBottom])]))
        let region = try #require(sheet.regions.first)
        #expect(region.width == 40 && region.height == 12)
        // Cut along the bar, the bar is the middle rows, dark along its length; the rows 3 or more from it are white.
        for v in 0..<region.height {
            let row = (0..<region.width).map { Int(sheet.rgb[3 * ((region.top + v) * sheet.width + $0)]) }
            let middle = Double(v) + 0.5 - 6
            if abs(middle) < 1.5 { #expect(row[2..<38].allSatisfy { $0 < 80 }, "row \(v)") }
            if abs(middle) > 3.5 { #expect(row.allSatisfy { $0 > 200 }, "row \(v)") }
        }
    }

    @Test("a standing line read cut out is placed as the same line read on the turned photo")
    func standingPlacement() throws {
        let box = LineSheet.Quad(left: 30, top: 100, right: 50, bottom: 400)
        let reading = PPOCRTextLine(text: "X", confidence: 0.9, left: 0, top: 0, width: 300, height: 20, corners: [])
        for orientation in [TextOrientation.verticalTopToBottom, .verticalBottomToTop] {
            // The same box as the detector finds it on the photo turned for `orientation` (1000 × 800 upright).
            let corners: [(x: Double, y: Double)] =
                orientation == .verticalTopToBottom
                ? [(100, 950), (400, 950), (400, 970), (100, 970)] : [(400, 30), (700, 30), (700, 50), (400, 50)]
            let turned = PPOCRTextLine(text: "X", confidence: 0.9, left: 0, top: 0, width: 300, height: 20, corners: corners)
            let expected = PhotoLineReader.line(turned, turned: orientation, photoWidth: 1000, photoHeight: 800)
            let placed = PhotoLineReader.standingLine(box, reading: reading, orientation: orientation, photoWidth: 1000, photoHeight: 800)
            #expect(placed == expected, "\(orientation)")
        }
    }
}
