# CPack: `cpack -G DEB` in a build folder makes kvplan_<version>_<arch>.deb of what `cmake --install`
# installs (the programs that were built, the presets, the GUI's desktop entry and icon), into /usr.
# Depends comes from dpkg-shlibdeps (package dpkg-dev; CPack finds the ELF files with `file`), so it
# names the libraries the binaries really link, at the versions they were built against.
set(CPACK_PACKAGE_NAME kvplan)
set(CPACK_PACKAGE_VENDOR "kvplan")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "kvplan tells you how many bytes every token of a model's KV cache costs, how much N concurrent
users need, what fits on each GPU under tensor and pipeline parallelism, and where the limit is:
exact integers from the model's config.json. kvplan is the command-line planner; kvplan-gui, where
built, explores a configuration interactively.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "kvplan maintainers <kvplan@localhost>")
set(CPACK_PACKAGE_INSTALL_DIRECTORY kvplan)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(TARGET kvplan-gui)
  # Qt loads its platform plugins (xcb, wayland, offscreen) at run time, so dpkg-shlibdeps cannot see
  # them, and libqt6gui6 only recommends them: without one the GUI cannot open a window.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS qt6-qpa-plugins)
endif()
include(CPack)
