extension PixelBuffer {
    /// Draws the outline of a rectangle (pixel coordinates, clipped to the image).
    package mutating func strokeRectangle(x: Int, y: Int, width w: Int, height h: Int, thickness: Int, color: (r: UInt8, g: UInt8, b: UInt8)) {
        guard w > 0, h > 0, thickness > 0 else { return }
        let t = min(thickness, max(1, min(w, h) / 2))
        fillRectangle(x: x, y: y, width: w, height: t, color: color)
        fillRectangle(x: x, y: y + h - t, width: w, height: t, color: color)
        fillRectangle(x: x, y: y, width: t, height: h, color: color)
        fillRectangle(x: x + w - t, y: y, width: t, height: h, color: color)
    }

    /// Fills a rectangle (pixel coordinates, clipped to the image).
    package mutating func fillRectangle(x: Int, y: Int, width w: Int, height h: Int, color: (r: UInt8, g: UInt8, b: UInt8)) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        let rowWidth = width
        pixels.withUnsafeMutableBufferPointer { dst in
            for yy in y0..<y1 {
                var i = (yy * rowWidth + x0) * 3
                for _ in x0..<x1 {
                    dst[i] = color.r
                    dst[i + 1] = color.g
                    dst[i + 2] = color.b
                    i += 3
                }
            }
        }
    }
}
