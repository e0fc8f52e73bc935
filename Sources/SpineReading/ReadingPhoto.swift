import ImageKit

/// The photo the reader crops from: gray pixels as stored (possibly DCT-scaled) and the EXIF
/// orientation that turns them upright. Coordinates handed to `sample` are upright pixels.
struct ReadingPhoto: Sendable {
    let stored: GrayImage
    let orientation: EXIFOrientation

    /// Width and height of the upright image.
    var width: Int { orientation.swapsDimensions ? stored.height : stored.width }
    var height: Int { orientation.swapsDimensions ? stored.width : stored.height }

    /// The stored coordinate that shows at upright (x, y).
    @inline(__always)
    func storedPoint(_ x: Double, _ y: Double) -> (Double, Double) {
        let w = Double(stored.width - 1), h = Double(stored.height - 1)
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
        let sw = photo.stored.width, sh = photo.stored.height
        photo.stored.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<outH {
                    let rx = x0 + rowStep.x * Double(row), ry = y0 + rowStep.y * Double(row)
                    for col in 0..<outW {
                        let px = rx + colStep.x * Double(col), py = ry + colStep.y * Double(col)
                        var sum: Float = 0
                        for o in offsets { sum += bilinear(src, sw, sh, px + o.x, py + o.y) }
                        dst[row * outW + col] = UInt8(max(0, min(255, sum * norm + 0.5)))
                    }
                }
            }
        }
        return GrayImage(width: outW, height: outH, pixels: out)
    }

    @inline(__always)
    static func bilinear(_ p: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> Float {
        let cx = min(Double(w - 1), max(0, x)), cy = min(Double(h - 1), max(0, y))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(w - 1, x0 + 1), y1 = min(h - 1, y0 + 1)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        let a = Float(p[y0 * w + x0]), b = Float(p[y0 * w + x1]), c = Float(p[y1 * w + x0]), d = Float(p[y1 * w + x1])
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }
}
