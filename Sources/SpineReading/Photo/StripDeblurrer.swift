import Foundation
import ImageKit

/// Undoes a blurred photo's softness on one strip: Richardson–Lucy deconvolution for a Gaussian blur,
/// the blur a camera's defocus and a photo's scaling mostly make. Each round compares the strip with
/// the current estimate blurred again and corrects the estimate by the ratio, so lettering whose
/// strokes had run together gets its gaps back; the estimate stays positive and keeps the strip's light.
enum StripDeblurrer {
    /// The strip deconvolved for a Gaussian blur of `sigma` strip pixels over `rounds` rounds. A blur
    /// wider than `finestSigma` is undone on the strip shrunk by the whole factor that brings it there
    /// (the blur leaves nothing finer to recover; a quarter of the pixels and a smaller kernel per
    /// halving), and the result enlarged back to the strip's size.
    static func deconvolved(_ image: GrayImage, sigma: Double, rounds: Int, finestSigma: Double = 1.3) -> GrayImage {
        let factor = max(1, Int(sigma / finestSigma))
        guard factor > 1, image.width >= 4 * factor, image.height >= 4 * factor else {
            return deconvolvedInPlace(image, sigma: sigma, rounds: rounds)
        }
        guard let shrunk = shrunk(image, by: factor),
            let out = enlarged(deconvolvedInPlace(shrunk, sigma: sigma / Double(factor), rounds: rounds), toWidth: image.width, height: image.height)
        else { return deconvolvedInPlace(image, sigma: sigma, rounds: rounds) }
        return out
    }

    /// The mean of each `factor` × `factor` block (a partial block at the right or bottom edge averages what it has).
    static func shrunk(_ image: GrayImage, by factor: Int) -> GrayImage? {
        let w = image.width, h = image.height
        let sw = (w + factor - 1) / factor, sh = (h + factor - 1) / factor
        var sums = [Int](repeating: 0, count: sw * sh)
        var counts = [Int](repeating: 0, count: sw * sh)
        for y in 0..<h {
            let row = (y / factor) * sw
            for x in 0..<w {
                sums[row + x / factor] += Int(image.pixels[y * w + x])
                counts[row + x / factor] += 1
            }
        }
        var pixels = [UInt8](repeating: 0, count: sw * sh)
        for i in pixels.indices { pixels[i] = UInt8((sums[i] + counts[i] / 2) / max(1, counts[i])) }
        return GrayImage(width: sw, height: sh, pixels: pixels)
    }

    /// `image` enlarged bilinearly to `width` × `height` (pixel centres aligned).
    static func enlarged(_ image: GrayImage, toWidth width: Int, height: Int) -> GrayImage? {
        let sw = image.width, sh = image.height
        let fx = Double(sw) / Double(width), fy = Double(sh) / Double(height)
        let columns = (0..<width).map { x in
            let sx = max(0, min(Double(sw - 1), (Double(x) + 0.5) * fx - 0.5))
            let x0 = Int(sx)
            return (x0, min(sw - 1, x0 + 1), Float(sx - Double(x0)))
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let sy = max(0, min(Double(sh - 1), (Double(y) + 0.5) * fy - 0.5))
            let y0 = Int(sy), y1 = min(sh - 1, y0 + 1), ty = Float(sy - Double(y0))
            for x in 0..<width {
                let (x0, x1, tx) = columns[x]
                let top = Float(image.pixels[y0 * sw + x0]) * (1 - tx) + Float(image.pixels[y0 * sw + x1]) * tx
                let bottom = Float(image.pixels[y1 * sw + x0]) * (1 - tx) + Float(image.pixels[y1 * sw + x1]) * tx
                pixels[y * width + x] = UInt8(max(0, min(255, (top * (1 - ty) + bottom * ty).rounded())))
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Richardson–Lucy at the strip's own resolution.
    private static func deconvolvedInPlace(_ image: GrayImage, sigma: Double, rounds: Int) -> GrayImage {
        let w = image.width, h = image.height
        guard w > 0, h > 0, sigma > 0.3, rounds > 0 else { return image }
        let kernel = gaussian(sigma)
        let count = w * h
        let padding = max(w, h) + kernel.count
        // Five planes (observed, estimate, blurred, ratio, scratch) and a padded row, in one allocation.
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: 5 * count + padding)
        defer { storage.deallocate() }
        let observed = storage, estimate = storage + count, blurred = storage + 2 * count, ratio = storage + 3 * count
        let scratch = storage + 4 * count, padded = storage + 5 * count
        // Observed light, kept off zero (the ratio divides by the blurred estimate).
        image.pixels.withUnsafeBufferPointer { p in
            for i in 0..<count { observed[i] = Float(p[i]) + 1 }
        }
        estimate.update(from: observed, count: count)
        kernel.withUnsafeBufferPointer { k in
            for _ in 0..<rounds {
                blur(estimate, into: blurred, scratch: scratch, padded: padded, width: w, height: h, kernel: k)
                for i in 0..<count { ratio[i] = observed[i] / max(0.5, blurred[i]) }
                // The correction, into `blurred`; the estimate bounded so a speck of noise cannot run away.
                blur(ratio, into: blurred, scratch: scratch, padded: padded, width: w, height: h, kernel: k)
                for i in 0..<count { estimate[i] = min(400, estimate[i] * blurred[i]) }
            }
        }
        var out = image
        out.pixels.withUnsafeMutableBufferPointer { p in
            for i in 0..<count { p[i] = UInt8(max(0, min(255, (estimate[i] - 1).rounded()))) }
        }
        return out
    }

    /// A normalised Gaussian of `sigma`, 3σ each side.
    static func gaussian(_ sigma: Double) -> [Float] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        let weights = (-radius...radius).map { d in exp(-Double(d * d) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        return weights.map { Float($0 / total) }
    }

    /// `source` blurred by `kernel` along rows, then along columns, into `output` (edges repeated).
    private static func blur(
        _ source: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>,
        padded: UnsafeMutablePointer<Float>, width w: Int, height h: Int, kernel: UnsafeBufferPointer<Float>
    ) {
        let r = kernel.count / 2
        for y in 0..<h {
            let src = source + y * w, tmp = scratch + y * w
            for x in 0..<(w + 2 * r) { padded[x] = src[min(w - 1, max(0, x - r))] }
            tmp.update(repeating: 0, count: w)
            for j in 0..<kernel.count {
                let k = kernel[j], from = padded + j
                for x in 0..<w { tmp[x] += k * from[x] }
            }
        }
        for y in 0..<h {
            let dst = output + y * w
            dst.update(repeating: 0, count: w)
            for j in 0..<kernel.count {
                let k = kernel[j], from = scratch + min(h - 1, max(0, y + j - r)) * w
                for x in 0..<w { dst[x] += k * from[x] }
            }
        }
    }
}
