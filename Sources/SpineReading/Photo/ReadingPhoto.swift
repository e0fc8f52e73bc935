import ImageKit

/// The photo the reader crops from: gray pixels as stored (possibly DCT-scaled) and the EXIF
/// orientation that turns them upright. Coordinates handed to `sample` are upright pixels.
///
/// It may hold only a part of the stored pixels (`cropped(to:)`: the part one spine covers), placed by
/// `originX` / `originY` in the whole stored image; coordinates stay those of the whole photo.
struct ReadingPhoto: Sendable {
    /// The stored pixels held: all of them, or the part one spine covers.
    let stored: GrayImage
    let orientation: EXIFOrientation
    /// Width and height of the whole stored image.
    let storedWidth: Int
    let storedHeight: Int
    /// Where `stored`'s first pixel sits in the whole stored image.
    let originX: Int
    let originY: Int

    init(stored: GrayImage, orientation: EXIFOrientation) {
        self.init(stored: stored, orientation: orientation, storedWidth: stored.width, storedHeight: stored.height, originX: 0, originY: 0)
    }

    private init(stored: GrayImage, orientation: EXIFOrientation, storedWidth: Int, storedHeight: Int, originX: Int, originY: Int) {
        self.stored = stored
        self.orientation = orientation
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        self.originX = originX
        self.originY = originY
    }

    /// Width and height of the upright image.
    var width: Int { orientation.swapsDimensions ? storedHeight : storedWidth }
    var height: Int { orientation.swapsDimensions ? storedWidth : storedHeight }

    /// The point of the whole stored image that shows at upright (x, y).
    @inline(__always)
    func storedPoint(_ x: Double, _ y: Double) -> (Double, Double) {
        let w = Double(storedWidth - 1), h = Double(storedHeight - 1)
        switch orientation {
        case .up: return (x, y)
        case .upMirrored: return (w - x, y)
        case .down: return (w - x, h - y)
        case .downMirrored: return (x, h - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, h - x)
        case .rightMirrored: return (w - y, h - x)
        case .left: return (w - y, x)
        }
    }

    /// The whole photo turned upright (nearest stored pixel per upright pixel).
    func upright() -> GrayImage {
        let w = width, h = height
        guard orientation != .up || originX != 0 || originY != 0 || stored.width != w else { return stored }
        var pixels = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let (sx, sy) = storedPoint(Double(x), Double(y))
                let ix = Int(sx) - originX, iy = Int(sy) - originY
                if ix >= 0, iy >= 0, ix < stored.width, iy < stored.height { pixels[y * w + x] = stored.pixels[iy * stored.width + ix] }
            }
        }
        return GrayImage(width: w, height: h, pixels: pixels) ?? stored
    }

    /// Pixels kept round a spine's rectangle in a crop: a strip stays inside its frame, and bilinear
    /// sampling reaches one pixel further.
    static let cropMargin = 2

    /// The stored pixels under `frame`'s rectangle and `cropMargin` pixels round it, clipped to the photo,
    /// as a photo of their own: every strip `StripSampler` samples of that spine reads the same pixels from
    /// it as from the whole photo.
    func cropped(to frame: SpineFrame) -> ReadingPhoto {
        let (minX, minY, maxX, maxY) = storedBounds(of: frame)
        let cropWidth = maxX - minX + 1, cropHeight = maxY - minY + 1
        var pixels = [UInt8](repeating: 0, count: cropWidth * cropHeight)
        stored.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for row in 0..<cropHeight {
                    let start = (minY - originY + row) * stored.width + (minX - originX)
                    (to + row * cropWidth).update(from: from + start, count: cropWidth)
                }
            }
        }
        guard let image = GrayImage(width: cropWidth, height: cropHeight, pixels: pixels) else { return self }
        return ReadingPhoto(
            stored: image, orientation: orientation, storedWidth: storedWidth, storedHeight: storedHeight, originX: minX, originY: minY)
    }

    /// Stored pixels `cropped(to:)` would hold for `frame`: its bounds' area.
    func croppedArea(_ frame: SpineFrame) -> Int {
        let (minX, minY, maxX, maxY) = storedBounds(of: frame)
        return (maxX - minX + 1) * (maxY - minY + 1)
    }

    /// The stored-pixel bounds (inclusive) of `frame`'s rectangle with `cropMargin`, within the pixels held.
    private func storedBounds(of frame: SpineFrame) -> (Int, Int, Int, Int) {
        let margin = Double(Self.cropMargin)
        let halfLength = frame.length / 2, halfWidth = frame.width / 2
        var xs: [Double] = [], ys: [Double] = []
        for (a, n) in [(-1.0, -1.0), (-1, 1), (1, -1), (1, 1)] {
            let (x, y) = storedPoint(
                frame.centerX + a * halfLength * frame.axisX + n * halfWidth * frame.normalX,
                frame.centerY + a * halfLength * frame.axisY + n * halfWidth * frame.normalY)
            xs.append(x)
            ys.append(y)
        }
        func clamped(_ v: Double, _ low: Int, _ high: Int) -> Int {
            guard v.isFinite else { return v > 0 ? high : low }
            return Swift.min(high, Swift.max(low, Int(v.rounded(.down))))
        }
        let lowX = originX, highX = originX + stored.width - 1, lowY = originY, highY = originY + stored.height - 1
        let minX = clamped((xs.min() ?? 0) - margin, lowX, highX)
        let maxX = clamped((xs.max() ?? 0).rounded(.up) + margin, lowX, highX)
        let minY = clamped((ys.min() ?? 0) - margin, lowY, highY)
        let maxY = clamped((ys.max() ?? 0).rounded(.up) + margin, lowY, highY)
        return (minX, minY, Swift.max(minX, maxX), Swift.max(minY, maxY))
    }
}

/// Which way the text runs on the spine, relative to the spine's long axis.
enum ReadingDirection: Sendable, CaseIterable {
    /// Along the axis from its start (top of a standing book: text read top to bottom, 90°).
    case alongForward
    /// Along the axis from its end (bottom to top, 270°; upside down on a lying book).
    case alongBackward
    /// Across the axis (horizontal lines on a wide standing spine).
    case across
}

/// Samples a spine into a text-upright strip at a chosen scale (bilinear, area-averaged when shrinking).
enum StripSampler {
    /// The strip for `direction`: `pixelsAcrossText` output pixels per line of text height budget;
    /// `trim` is the fraction cut from each long edge (shading, neighbours).
    static func strip(
        _ photo: ReadingPhoto, frame: SpineFrame, direction: ReadingDirection, scale: Double, trim: Double
    ) -> GrayImage? {
        let ax = frame.axisX, ay = frame.axisY, nx = frame.normalX, ny = frame.normalY
        let usableWidth = frame.width * (1 - 2 * trim)
        let usableLength = frame.length * (1 - 2 * min(0.02, trim))
        // (ux, uy): source step per output column; (vx, vy): per output row; (ox, oy): output (0, 0).
        let ux: Double, uy: Double, vx: Double, vy: Double, outW: Int, outH: Int
        switch direction {
        case .alongForward:
            (ux, uy, vx, vy) = (ax, ay, -nx, -ny)
            (outW, outH) = (Int(usableLength * scale), Int(usableWidth * scale))
        case .alongBackward:
            (ux, uy, vx, vy) = (-ax, -ay, nx, ny)
            (outW, outH) = (Int(usableLength * scale), Int(usableWidth * scale))
        case .across:
            (ux, uy, vx, vy) = (nx, ny, ax, ay)
            (outW, outH) = (Int(usableWidth * scale), Int(usableLength * scale))
        }
        guard outW >= 8, outH >= 8, outW * outH <= 6_000_000 else { return nil }
        let step = 1 / scale
        let ox = frame.centerX - (ux * Double(outW) + vx * Double(outH)) * step / 2
        let oy = frame.centerY - (uy * Double(outW) + vy * Double(outH)) * step / 2
        // The upright → stored map is affine, so the whole strip is one affine map of (column, row):
        // stored = origin + column·colStep + row·rowStep, composed once instead of per sample.
        let (x0, y0) = photo.storedPoint(ox, oy)
        let (xu, yu) = photo.storedPoint(ox + ux * step, oy + uy * step)
        let (xv, yv) = photo.storedPoint(ox + vx * step, oy + vy * step)
        let colStep = (x: xu - x0, y: yu - y0), rowStep = (x: xv - x0, y: yv - y0)
        // When shrinking, average a small grid of samples per output pixel.
        let taps = max(1, min(4, Int(step.rounded(.up))))
        var offsets: [(x: Double, y: Double)] = []
        for ty in 0..<taps {
            for tx in 0..<taps {
                let fu = (Double(tx) + 0.5) / Double(taps), fv = (Double(ty) + 0.5) / Double(taps)
                offsets.append((colStep.x * fu + rowStep.x * fv, colStep.y * fu + rowStep.y * fv))
            }
        }
        let norm = 1 / Float(taps * taps)
        var out = [UInt8](repeating: 0, count: outW * outH)
        let held = Held(photo)
        photo.stored.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<outH {
                    let rx = x0 + rowStep.x * Double(row), ry = y0 + rowStep.y * Double(row)
                    for col in 0..<outW {
                        let px = rx + colStep.x * Double(col), py = ry + colStep.y * Double(col)
                        var sum: Float = 0
                        for o in offsets { sum += bilinear(src, held, px + o.x, py + o.y) }
                        dst[row * outW + col] = UInt8(max(0, min(255, sum * norm + 0.5)))
                    }
                }
            }
        }
        return GrayImage(width: outW, height: outH, pixels: out)
    }

    /// The stored pixels a photo holds, in whole-photo coordinates: columns `minX...maxX`, rows `minY...maxY`.
    struct Held {
        let minX: Int, minY: Int, maxX: Int, maxY: Int, rowLength: Int

        init(_ photo: ReadingPhoto) {
            minX = photo.originX
            minY = photo.originY
            maxX = photo.originX + photo.stored.width - 1
            maxY = photo.originY + photo.stored.height - 1
            rowLength = photo.stored.width
        }
    }

    /// Bilinear sample at whole-photo point (x, y), clamped to the pixels held. The arithmetic is done in
    /// whole-photo coordinates, so a crop gives exactly the samples of the whole photo inside it.
    @inline(__always)
    static func bilinear(_ p: UnsafeBufferPointer<UInt8>, _ held: Held, _ x: Double, _ y: Double) -> Float {
        let cx = min(Double(held.maxX), max(Double(held.minX), x)), cy = min(Double(held.maxY), max(Double(held.minY), y))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(held.maxX, x0 + 1), y1 = min(held.maxY, y0 + 1)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        let r0 = (y0 - held.minY) * held.rowLength - held.minX, r1 = (y1 - held.minY) * held.rowLength - held.minX
        let a = Float(p[r0 + x0]), b = Float(p[r0 + x1]), c = Float(p[r1 + x0]), d = Float(p[r1 + x1])
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }
}
