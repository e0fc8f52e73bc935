package import ImageKit

/// Why a scan did not produce a result.
package enum ScanEngineError: Error, Sendable, Equatable {
    /// The image could not be read (empty, not a JPEG, corrupt, too large).
    case image(ImageError)
    /// `isCancelled()` returned true between two steps.
    case canceled
}
