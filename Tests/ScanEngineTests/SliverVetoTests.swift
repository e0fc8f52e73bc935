import ScanProtocol
import Testing

@testable import ScanEngine

/// Untitled slivers beside titled books are dropped; books that may be thin ones stay.
@Suite("Dropping untitled slivers")
struct SliverVetoTests {
    static let veto = SliverVeto(imageWidth: 2000, imageHeight: 1000)

    /// A spine `width` × `height` pixels at `x` (pixels) of the 2000 × 1000 photo, in `row`.
    static func spine(x: Double, width: Double, height: Double = 900, row: Int = 0, title: String? = nil) -> Spine {
        Spine(
            index: 0, row: row, box: NormalizedBox(x: x / 2000, y: 0.05, width: width / 2000, height: height / 1000), confidence: 1,
            color: RGBColor(r: 100, g: 100, b: 100), pose: .upright, title: title)
    }

    /// A spine leaning `lean` pixels to the right over its 900-pixel height, `width` pixels across its outline, at
    /// `x` (pixels, its top-left corner): its box is `width + lean` pixels wide.
    static func leaningSpine(x: Double, width: Double, lean: Double, title: String? = nil) -> Spine {
        func point(_ px: Double, _ py: Double) -> NormalizedPoint { NormalizedPoint(x: px / 2000, y: py / 1000) }
        let outline = NormalizedQuad(
            topLeft: point(x, 50), topRight: point(x + width, 50), bottomRight: point(x + width + lean, 950), bottomLeft: point(x + lean, 950))
        return Spine(
            index: 0, row: 0, box: outline.boundingBox, confidence: 1, color: RGBColor(r: 100, g: 100, b: 100), pose: .upright,
            polygon: outline, title: title)
    }

    static func rows(_ count: Int) -> [ShelfRow] {
        (0..<count).map { ShelfRow(index: $0, box: NormalizedBox(x: 0, y: 0, width: 1, height: 1), spineCount: 0) }
    }

    @Test("a thin untitled strip beside titled books goes; the rest are indexed again and counted")
    func sliverGoes() {
        let spines = [
            Self.spine(x: 0, width: 100, title: "A"), Self.spine(x: 100, width: 20), Self.spine(x: 120, width: 100, title: "B"),
            Self.spine(x: 220, width: 100, title: "C"),
        ]
        let (kept, rows) = Self.veto.kept(spines, rows: Self.rows(1))
        #expect(kept.map(\.title) == ["A", "B", "C"])
        #expect(kept.map(\.index) == [0, 1, 2])
        #expect(rows.map(\.spineCount) == [3])
    }

    @Test("a leaning sliver is measured across its outline, not its box; a leaning book as wide as the titled ones stays")
    func leaningSliverGoes() {
        let spines = [
            Self.leaningSpine(x: 0, width: 100, lean: 60, title: "A"), Self.leaningSpine(x: 100, width: 20, lean: 60),
            Self.leaningSpine(x: 120, width: 100, lean: 60), Self.leaningSpine(x: 220, width: 100, lean: 60, title: "B"),
        ]
        // The sliver's box is 80 pixels wide, over half the titled books' 100: only its outline shows it thin.
        #expect(spines[1].box.width * 2000 > 0.5 * 100)
        let (kept, rows) = Self.veto.kept(spines, rows: Self.rows(1))
        #expect(kept.map(\.title) == ["A", nil, "B"])
        #expect(kept[1].box.x == 0.06)
        #expect(rows.map(\.spineCount) == [3])
    }

    @Test("a titled sliver, an untitled book half as wide as the titled ones, and a short thin book stay")
    func booksStay() {
        let spines = [
            Self.spine(x: 0, width: 100, title: "A"), Self.spine(x: 100, width: 20, title: "thin but read"),
            Self.spine(x: 120, width: 60), Self.spine(x: 180, width: 20, height: 400), Self.spine(x: 200, width: 100, title: "B"),
        ]
        #expect(Self.veto.kept(spines, rows: Self.rows(1)).spines.count == 5)
    }

    @Test("an untitled stub under a third as tall as the titled books goes; a titled one and a shorter book stay")
    func stubGoes() {
        let spines = [
            Self.spine(x: 0, width: 100, title: "A"), Self.spine(x: 100, width: 100, title: "B"),
            Self.spine(x: 200, width: 60, height: 250), Self.spine(x: 260, width: 60, height: 250, title: "short but read"),
            Self.spine(x: 320, width: 60, height: 400),
        ]
        let (kept, rows) = Self.veto.kept(spines, rows: Self.rows(1))
        #expect(kept.map(\.title) == ["A", "B", "short but read", nil])
        #expect(kept.last?.box.height == 0.4)
        #expect(rows.map(\.spineCount) == [4])
    }

    @Test("with fewer than two titled books in the photo nothing goes, not even a book the photo's edge cuts off")
    func tooFewTitled() {
        let spines = [
            Self.spine(x: 0, width: 100, title: "A"), Self.spine(x: 100, width: 20), Self.spine(x: 120, width: 100), Self.spine(x: 1900, width: 100),
        ]
        #expect(Self.veto.kept(spines, rows: Self.rows(1)).spines.count == 4)
    }

    @Test("an untitled book the photo's left or right edge cuts off goes; a titled one there, and an untitled one inside, stay")
    func cutOffGoes() {
        let spines = [
            Self.spine(x: 0, width: 90), Self.spine(x: 90, width: 100, title: "A"), Self.spine(x: 190, width: 100),
            Self.spine(x: 290, width: 100, title: "B"), Self.spine(x: 1890, width: 100), Self.spine(x: 1990, width: 10, title: "C"),
        ]
        // 1890 + 100 pixels ends 10 pixels, 0.005 of the width, short of the right edge: within `edgeShare`.
        let (kept, rows) = Self.veto.kept(spines, rows: Self.rows(1))
        #expect(kept.map(\.title) == ["A", nil, "B", "C"])
        #expect(kept[1].box.x == 0.095)
        #expect(rows.map(\.spineCount) == [4])
        #expect(SliverVeto.isCutOff(spines[0]) && SliverVeto.isCutOff(spines[4]))
        #expect(!SliverVeto.isCutOff(spines[2]) && !SliverVeto.isCutOff(spines[5]))
    }

    @Test("a row with under two titled books is judged by the photo's titled books")
    func photoMedianForSparseRow() {
        let spines = [
            Self.spine(x: 0, width: 100, title: "A"), Self.spine(x: 100, width: 100, title: "B"),
            Self.spine(x: 500, width: 20, row: 1), Self.spine(x: 520, width: 100, row: 1),
        ]
        let (kept, rows) = Self.veto.kept(spines, rows: Self.rows(2))
        #expect(kept.map(\.row) == [0, 0, 1])
        #expect(kept.map(\.index) == [0, 1, 2])
        #expect(rows.map(\.spineCount) == [2, 1])
    }
}
