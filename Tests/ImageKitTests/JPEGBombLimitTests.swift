import BookscanTestSupport
import ImageKit
import ImagePreparation
import Testing

/// Every JPEG decode has limits (`JPEGDecodeLimits`): scans, coefficient memory, time. Each is checked here on
/// real progressive photos (libjpeg's standard progression, what `cjpeg -progressive` writes) with limits just
/// below and at what the photo needs; the bombs themselves are in ScanServiceTests/UploadBombTests.
@Suite("JPEG decode limits")
struct JPEGBombLimitTests {
    /// A 640×480 photo-like picture: gradients and blocks, so every scan carries data.
    static func picture(width: Int = 640, height: Int = 480) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height, fill: (60, 40, 30))
        for i in 0..<12 {
            image.fillRectangle(
                x: 10 + i * (width - 20) / 12, y: height / 5 + (i * 29) % (height / 4), width: (width - 20) / 12 - 3, height: height / 2,
                color: (UInt8(40 + i * 17), UInt8(200 - i * 13), UInt8((i * 71) % 256)))
        }
        return image
    }

    static func progressive(width: Int = 640, height: Int = 480) throws -> [UInt8] {
        try JPEGEncoder.encode(picture(width: width, height: height), quality: 90, progressive: true)
    }

    /// libjpeg's coefficient buffer for a 4:2:0 YCbCr JPEG (what libjpeg encodes by default): luma blocks
    /// rounded up to 2×2, chroma blocks as they are, 128 bytes a block.
    static func coefficientBytes420(width: Int, height: Int) -> Int {
        let lumaWide = ((width + 7) / 8 + 1) / 2 * 2, lumaTall = ((height + 7) / 8 + 1) / 2 * 2
        let chromaWide = (width + 15) / 16, chromaTall = (height + 15) / 16
        return (lumaWide * lumaTall + 2 * chromaWide * chromaTall) * 128
    }

    @Test("a progressive photo has 10 scans and a coefficient buffer; a baseline one has 1 scan and none")
    func headerFacts() throws {
        let progressive = try JPEGDecoder.readHeader(try Self.progressive(width: 643, height: 481))
        #expect(progressive.progressive)
        #expect(progressive.scans == 10)
        #expect(progressive.coefficientBufferBytes == Self.coefficientBytes420(width: 643, height: 481))
        let baseline = try JPEGDecoder.readHeader(try JPEGEncoder.encode(Self.picture(), quality: 90))
        #expect(!baseline.progressive)
        #expect(baseline.scans == 1)
        #expect(baseline.coefficientBufferBytes == 0)
    }

    @Test("a progressive photo decodes under the standard limits: RGB and gray, at every DCT scale, strict", arguments: [1, 2, 4, 8])
    func progressivePhotoDecodes(scale: Int) throws {
        let jpeg = try Self.progressive()
        let rgb = try JPEGDecoder.decode(jpeg, scaleDenominator: scale, strict: true)
        #expect(rgb.image.width == 640 / scale && rgb.image.height == 480 / scale)
        let gray = try JPEGDecoder.decodeGray(jpeg, scaleDenominator: scale)
        #expect(gray.width == 640 / scale)
    }

    @Test("more scans than the limit are refused from the markers, before decoding; as many as the limit decode")
    func scanLimit() throws {
        let jpeg = try Self.progressive()
        #expect(throws: ImageError.overLimit(.scans(found: 10, limit: 9))) {
            try JPEGDecoder.decode(jpeg, scaleDenominator: 8, limits: JPEGDecodeLimits(maxScans: 9))
        }
        #expect(throws: ImageError.overLimit(.scans(found: 10, limit: 9))) {
            try JPEGDecoder.decodeGray(jpeg, scaleDenominator: 8, limits: JPEGDecodeLimits(maxScans: 9))
        }
        _ = try JPEGDecoder.decode(jpeg, scaleDenominator: 8, strict: true, limits: JPEGDecodeLimits(maxScans: 10))
    }

    @Test("a coefficient buffer over the memory limit is refused before it is allocated; one at the limit decodes (full and 1/8 scale)")
    func memoryLimit() throws {
        let jpeg = try Self.progressive()
        let needed = try JPEGDecoder.readHeader(jpeg).coefficientBufferBytes
        for scale in [1, 8] {
            #expect(throws: ImageError.overLimit(.memory(needed: needed, limit: needed - 1))) {
                try JPEGDecoder.decode(jpeg, scaleDenominator: scale, limits: JPEGDecodeLimits(maxMemory: needed - 1))
            }
            // At the limit libjpeg's own max_memory_to_use (the limit plus its row buffers) lets the decode through.
            _ = try JPEGDecoder.decode(jpeg, scaleDenominator: scale, strict: true, limits: JPEGDecodeLimits(maxMemory: needed))
            _ = try JPEGDecoder.decodeGray(jpeg, scaleDenominator: scale, limits: JPEGDecodeLimits(maxMemory: needed))
        }
        // A baseline JPEG holds no coefficient buffer: no memory limit stops it.
        _ = try JPEGDecoder.decode(try JPEGEncoder.encode(Self.picture(), quality: 90), limits: JPEGDecodeLimits(maxMemory: 0))
    }

    @Test("a decode still running at its time limit stops (progressive: while absorbing scans; baseline: between rows)")
    func timeLimit() throws {
        let limits = JPEGDecodeLimits(timeLimit: .nanoseconds(1))
        for jpeg in [try Self.progressive(), try JPEGEncoder.encode(Self.picture(), quality: 90)] {
            #expect(throws: ImageError.overLimit(.time(limit: .nanoseconds(1)))) {
                try JPEGDecoder.decode(jpeg, scaleDenominator: 1, limits: limits)
            }
            #expect(throws: ImageError.overLimit(.time(limit: .nanoseconds(1)))) {
                try JPEGDecoder.decodeGray(jpeg, scaleDenominator: 8, limits: limits)
            }
            _ = try JPEGDecoder.decode(jpeg, scaleDenominator: 1, limits: JPEGDecodeLimits(timeLimit: nil))
        }
    }

    @Test("decodeMemory is the pixels returned plus the coefficient buffer")
    func decodeMemory() throws {
        let header = try JPEGDecoder.readHeader(try Self.progressive())
        #expect(JPEGDecoder.decodeMemory(of: header, scaleDenominator: 8) == 80 * 60 * 3 + header.coefficientBufferBytes)
        #expect(JPEGDecoder.decodeMemory(of: header, scaleDenominator: 1, gray: true) == 640 * 480 + header.coefficientBufferBytes)
    }

    @Test("a progressive photo is prepared like any other: copied within the long side, decoded and fitted above it")
    func progressivePhotoPrepares() throws {
        let jpeg = try Self.progressive()
        let copied = try ImagePreparer(longSide: 1000).prepare(bytes: jpeg)
        #expect(!copied.reencoded)
        let fitted = try ImagePreparer(longSide: 320).prepare(bytes: jpeg)
        #expect(fitted.reencoded && fitted.width == 320)
    }

    @Test("a limit's message says which limit and by how much")
    func messages() {
        #expect(ImageError.overLimit(.scans(found: 1000, limit: 32)).description.contains("1000 scans, over the limit of 32"))
        #expect(JPEGLimitExceeded.scans(found: 33, limit: 32).description.contains("more than 32 scans"))
        let memory = JPEGLimitExceeded.memory(needed: 300_000_001, limit: 268_435_456)
        #expect(memory.description.contains("301 MB of memory, over the limit of 269 MB"))
    }

    @Test("an arithmetic-coded JPEG is refused from its header by every decode, unless the limits allow it")
    func arithmeticCodingRefused() throws {
        let file = ScanBombJPEG.make(width: 7071, height: 7071, scans: 32, arithmetic: true)
        let header = try JPEGDecoder.readHeader(file)
        #expect(header.arithmeticCoding)
        #expect(throws: ImageError.overLimit(.arithmeticCoding)) { try JPEGDecodeLimits.standard.check(header) }
        #expect(throws: ImageError.overLimit(.arithmeticCoding)) {
            _ = try JPEGDecoder.decode(file, scaleDenominator: 8, maxPixels: 60_000_000, strict: true)
        }
        #expect(throws: ImageError.overLimit(.arithmeticCoding)) { _ = try JPEGDecoder.decodeGray(file, scaleDenominator: 8) }
        #expect(!(try JPEGDecoder.readHeader(try Self.progressive())).arithmeticCoding)
        #expect(JPEGLimitExceeded.arithmeticCoding.description.contains("arithmetic-coded"))
    }

    @Test("strict decoding stops at the first corrupt-data warning instead of decoding on (to a later error)")
    func strictStopsAtFirstWarning() throws {
        let file = ScanBombJPEG.warningThenError(width: 4096, height: 4096)
        do {
            _ = try JPEGDecoder.decode(file, scaleDenominator: 8, maxPixels: 60_000_000, strict: true)
            Issue.record("a JPEG of bad Huffman codes decoded")
        } catch .corruptData(let message) {
            #expect(message.lowercased().contains("huffman code"), "\(message)")
        } catch {
            Issue.record("expected the first warning (bad Huffman code), got \(error)")
        }
        // Not strict, the decode goes on past the warning and meets the missing table.
        #expect(throws: ImageError.self) { _ = try JPEGDecoder.decode(file, scaleDenominator: 8, maxPixels: 60_000_000, strict: false) }
    }
}
