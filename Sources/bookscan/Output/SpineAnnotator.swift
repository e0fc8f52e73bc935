import Foundation
import ImageKit
import ImagePreparation
import ScanProtocol

/// Writes the photo with every detected spine outlined and numbered like the book list (`--annotate FILE`),
/// upright and without metadata.
enum SpineAnnotator {
    static func annotate(imagePath: String, result: ScanResult, output: String) throws {
        let prepared = try ImagePreparer(longSide: 2400).prepare(path: imagePath)
        let decoded = try JPEGDecoder.decode(prepared.jpeg)
        // A copied original still stores its pixels as the camera did: turn them as a viewer would.
        var image = prepared.reencoded ? decoded.image : decoded.image.applying(prepared.orientation)
        let thickness = max(2, image.longSide / 400)
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 64, 64), (64, 220, 64), (64, 160, 255), (255, 200, 0), (255, 64, 255), (0, 230, 230)]
        for row in result.rows {
            let b = pixelBox(row.box, image)
            image.strokeRectangle(x: b[0], y: b[1], width: b[2], height: b[3], thickness: max(1, thickness / 2), color: (255, 255, 255))
        }
        for spine in result.spines {
            let b = pixelBox(spine.box, image)
            image.strokeRectangle(
                x: b[0], y: b[1], width: b[2], height: b[3], thickness: thickness,
                color: palette[(spine.index % palette.count + palette.count) % palette.count])
        }
        // Book numbers last, so no outline covers them: book N here is line N of the list and the CSV.
        let dot = max(2, image.longSide / 500)
        for spine in result.spines {
            let b = spine.box.pixels(width: image.width, height: image.height)
            image.drawNumberLabel(
                spine.index + 1, centerX: Int(b[0] + b[2] / 2), centerY: Int(b[1] + min(b[3] / 2, Double(6 * dot))), scale: dot,
                color: (255, 255, 255), background: (0, 0, 0))
        }
        let jpeg = try JPEGEncoder.encode(image, quality: 88)
        try Data(jpeg).write(to: URL(fileURLWithPath: output), options: .atomic)
    }

    /// A box from the wire in whole pixels, each number kept within a few image sizes (NaN, infinite
    /// or huge coordinates from a server would otherwise trap on conversion or overflow when added).
    static func pixelBox(_ box: NormalizedBox, _ image: PixelBuffer) -> [Int] {
        let limit = Double(2 * max(image.width, image.height))
        return box.pixels(width: image.width, height: image.height).map { value in
            value.isFinite ? Int(min(limit, max(-limit, value))) : 0
        }
    }
}
