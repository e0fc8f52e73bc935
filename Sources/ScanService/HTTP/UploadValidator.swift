import Foundation
import HTTPTypes
import ImageKit
import NIOPosix
import ScanProtocol

/// The check every upload passes before a job exists: is it a JPEG the engine can scan, at what a photo costs?
struct UploadValidator: Sendable {
    let configuration: ServiceConfiguration
    let budget: UploadBudget
    /// Runs on the checking thread once a check's reservation is decided, before its decode: nothing in
    /// the product; a test seam observes or pauses there (`FaultSeams.observeValidation`, set at start-up).
    var checkpoint: @Sendable () -> Void = {}

    /// Why an upload is refused before a job exists.
    enum Refusal: Error {
        /// The JPEG is bad, too large, or a decode bomb: 422.
        case image(ImageError)
        /// Its body and decode need more memory than the budget has free right now: 503, retry later.
        case busy
    }

    /// What a check holds from the budget, and the limits its decode runs under.
    private struct Reservation {
        /// Bytes taken from the budget: the body, the 1/8-scale pixels, libjpeg's coefficient buffer.
        let bytes: Int
        /// The standard limits, with the coefficient buffer capped at exactly what was reserved.
        let limits: JPEGDecodeLimits
    }

    /// Refuses what the engine could not scan, before a job exists: a bad header, too many pixels (from the
    /// header alone), a decode bomb (too many scans: from the markers alone; too large a coefficient buffer;
    /// too long), or data libjpeg cannot decode. Runs on the blocking thread pool, never on the cooperative
    /// pool that serves requests. The decode is counted in the upload budget: the body it holds, the 1/8-scale
    /// pixels and libjpeg's coefficient buffer are reserved before it starts (libjpeg may allocate no more
    /// coefficient memory than that) and released when it ends; a decode that needs more than the whole budget
    /// is refused (422), one that does not fit now is 503.
    func validate(_ bytes: [UInt8]) async throws {
        let outcome: Result<Void, Refusal>
        do {
            outcome = try await NIOThreadPool.singleton.runIfActive { check(bytes) }
        } catch {
            throw ServiceError(.serviceUnavailable, .internal, "the service is shutting down", retryable: true)
        }
        switch outcome {
        case .success: return
        case .failure(.busy): throw budget.busy(retryAfterSeconds: configuration.retryAfterSeconds)
        case .failure(.image(let error)):
            if case .tooManyPixels = error {
                throw ServiceError(.unprocessableContent, .tooManyPixels, error.description)
            }
            throw ServiceError(.unprocessableContent, .undecodableImage, "the JPEG cannot be decoded: \(error.description)")
        }
    }

    /// The check itself, on a pool thread: header and markers, reservation, decode, release.
    private func check(_ bytes: [UInt8]) -> Result<Void, Refusal> {
        let reserved = reserve(for: bytes)
        checkpoint()
        let reservation: Reservation
        switch reserved {
        case .success(let taken): reservation = taken
        case .failure(let refusal): return .failure(refusal)
        }
        defer { budget.release(reservation.bytes) }
        do throws(ImageError) {
            _ = try JPEGDecoder.decode(
                bytes, scaleDenominator: Self.scaleDenominator, maxPixels: configuration.maxPixels, strict: true, limits: reservation.limits)
            return .success(())
        } catch {
            return .failure(.image(error))
        }
    }

    /// Reads the header and counts the scans (no decode, no allocation), then reserves what the decode will hold.
    private func reserve(for bytes: [UInt8]) -> Result<Reservation, Refusal> {
        let header: JPEGHeader
        do throws(ImageError) {
            header = try JPEGDecoder.readHeader(bytes)
        } catch {
            return .failure(.image(error))
        }
        let maxPixels = configuration.maxPixels
        if maxPixels > 0, header.width * header.height > maxPixels {
            return .failure(.image(.tooManyPixels(width: header.width, height: header.height, limit: maxPixels)))
        }
        let standard = JPEGDecodeLimits.standard
        do throws(ImageError) {
            try standard.check(header)
        } catch {
            return .failure(.image(error))
        }
        let needed = bytes.count + JPEGDecoder.decodeMemory(of: header, scaleDenominator: Self.scaleDenominator)
        guard needed <= budget.capacity else {
            return .failure(.image(.overLimit(.memory(needed: needed, limit: budget.capacity))))
        }
        guard budget.reserve(needed) else { return .failure(.busy) }
        let limits = JPEGDecodeLimits(maxScans: standard.maxScans, maxMemory: header.coefficientBufferBytes, timeLimit: standard.timeLimit)
        return .success(Reservation(bytes: needed, limits: limits))
    }

    /// The DCT scale of the check: 1/8 reads every coefficient (so any corrupt data is found) with the fewest pixels.
    static let scaleDenominator = 8
}
