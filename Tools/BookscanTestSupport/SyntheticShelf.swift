package import Foundation
import ImageKit

/// Small synthetic shelf photos drawn in memory: coloured spines standing on a board in front of a
/// dark back wall. Cheap to scan in debug builds, so a scan's duration is the injected step delay.
package enum SyntheticShelf {
    /// The photo as JPEG bytes; `seed` varies heights and colours.
    package static func jpeg(width: Int = 640, height: Int = 480, books: Int = 8, seed: Int = 0) throws -> [UInt8] {
        var image = PixelBuffer(width: width, height: height, fill: (40, 28, 20))
        let board = max(1, height / 12), margin = max(1, width / 32)
        let floor = height - board
        image.fillRectangle(x: 0, y: floor, width: width, height: board, color: (150, 110, 70))
        let bookWidth = max(2, (width - 2 * margin) / max(1, books))
        for i in 0..<books {
            let h = height / 2 + (i * 37 + seed * 11) % max(1, height / 3)
            let shade = UInt8((i * 53 + seed * 29) % 200 + 40)
            image.fillRectangle(
                x: margin + i * bookWidth, y: floor - h, width: bookWidth - 4, height: h,
                color: (shade, 255 - shade, UInt8(i * 30 % 255)))
        }
        return try JPEGEncoder.encode(image, quality: 90)
    }

    /// The photo written to a file in this process's temporary folder; its path.
    package static func file(width: Int = 640, height: Int = 480, books: Int = 8, seed: Int = 0) throws -> String {
        try TemporaryFiles.write(try jpeg(width: width, height: height, books: books, seed: seed), name: "shelf-\(width)x\(height)-\(books)-\(seed).jpg")
    }
}

/// Files tests write, in one folder per test process.
package enum TemporaryFiles {
    /// This process's folder under the system temporary directory.
    package static var directory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-tests-\(getpid())")
    }

    /// Writes `bytes` as `name` in `directory`; the path.
    package static func write(_ bytes: [UInt8], name: String) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}
