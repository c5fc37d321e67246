# FindMPFR.cmake: MPFR (and GMP, which it needs), for `samebits demo`'s
# exactly rounded sums. Sets MPFR_FOUND and the imported target MPFR::MPFR.
# pkg-config first; a plain search covers systems whose MPFR ships no
# mpfr.pc.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_MPFR QUIET mpfr)
endif()
find_path(MPFR_INCLUDE_DIR mpfr.h HINTS ${PC_MPFR_INCLUDE_DIRS})
find_library(MPFR_LIBRARY mpfr HINTS ${PC_MPFR_LIBRARY_DIRS})
find_library(MPFR_GMP_LIBRARY gmp HINTS ${PC_MPFR_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(MPFR
  REQUIRED_VARS MPFR_LIBRARY MPFR_GMP_LIBRARY MPFR_INCLUDE_DIR)
if(MPFR_FOUND AND NOT TARGET MPFR::MPFR)
  add_library(MPFR::MPFR INTERFACE IMPORTED)
  set_target_properties(MPFR::MPFR PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${MPFR_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${MPFR_LIBRARY};${MPFR_GMP_LIBRARY}")
endif()
mark_as_advanced(MPFR_INCLUDE_DIR MPFR_LIBRARY MPFR_GMP_LIBRARY)
