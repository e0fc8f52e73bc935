import Foundation
import ScanProtocol
import Testing

@Suite("Spine polygon on the wire")
struct SpinePolygonWireTests {
    let box = NormalizedBox(x: 0.25, y: 0.5, width: 0.125, height: 0.25)

    @Test("a spine without a polygon (an older server) decodes with the box corners, clockwise from top-left")
    func oldJSON() throws {
        let json = #"{"box":{"height":0.25,"width":0.125,"x":0.25,"y":0.5},"color":{"b":3,"g":2,"r":1},"confidence":0.5,"index":2,"pose":"upright","row":1}"#
        let spine = try WireCoding.decode(Spine.self, from: Data(json.utf8))
        #expect(spine.index == 2 && spine.row == 1 && spine.pose == .upright)
        #expect(spine.polygon.topLeft == NormalizedPoint(x: 0.25, y: 0.5))
        #expect(spine.polygon.topRight == NormalizedPoint(x: 0.375, y: 0.5))
        #expect(spine.polygon.bottomRight == NormalizedPoint(x: 0.375, y: 0.75))
        #expect(spine.polygon.bottomLeft == NormalizedPoint(x: 0.25, y: 0.75))
        #expect(spine.polygon.boundingBox == box)
    }

    @Test("a leaning spine's polygon round-trips as four [x, y] points")
    func roundTrip() throws {
        let quad = NormalizedQuad(
            topLeft: NormalizedPoint(x: 0.3, y: 0.5), topRight: NormalizedPoint(x: 0.375, y: 0.52),
            bottomRight: NormalizedPoint(x: 0.32, y: 0.75), bottomLeft: NormalizedPoint(x: 0.25, y: 0.73))
        let spine = Spine(
            index: 0, row: 0, box: quad.boundingBox, confidence: 0.5, color: RGBColor(r: 1, g: 2, b: 3), pose: .leaning,
            polygon: quad)
        let data = try WireCoding.encode(spine)
        #expect(String(decoding: data, as: UTF8.self).contains(#""polygon":[[0.3,0.5],[0.375,0.52],[0.32,0.75],[0.25,0.73]]"#))
        #expect(try WireCoding.decode(Spine.self, from: data) == spine)
    }

    @Test("a polygon with other than four points is a decoding error")
    func wrongCount() {
        let json = #"{"box":{"height":0.25,"width":0.125,"x":0.25,"y":0.5},"color":{"b":3,"g":2,"r":1},"confidence":0.5,"index":2,"pose":"upright","row":1,"polygon":[[0,0],[1,0],[1,1]]}"#
        #expect(throws: DecodingError.self) { try WireCoding.decode(Spine.self, from: Data(json.utf8)) }
    }
}
