#ifndef BOOKSCAN_BUILD_INFO_H
#define BOOKSCAN_BUILD_INFO_H

/// The git commit this build was made from, as the build was told (BOOKSCAN_COMMIT when the package
/// was built: scripts/package-deb and scripts/release set it); "" for a build that was not told.
const char *bookscan_build_commit(void);

#endif
