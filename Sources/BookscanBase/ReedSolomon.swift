/// Reed–Solomon error correction over GF(256) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1.
package enum ReedSolomon {
    /// a × b in GF(256).
    package static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var result = 0
        var x = Int(a)
        var y = Int(b)
        while y > 0 {
            if y & 1 == 1 { result ^= x }
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
            y >>= 1
        }
        return UInt8(result)
    }

    /// The generator polynomial ∏ (x − αⁱ), i < degree, as its coefficients below the leading 1, highest first.
    package static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The remainder of data·x^degree divided by the generator: the error correction codewords.
    package static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for i in 0..<generator.count { result[i] ^= multiply(generator[i], factor) }
        }
        return result
    }
}
