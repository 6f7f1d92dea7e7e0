/**
 * The hand-off to CNI plugins for granted SR-IOV VFs: the NPWG Device Information file
 * (tandem-api's {@code DeviceInfo}, the device plugin's format and name), written by Prepare and
 * removed by Unprepare, so that Multus and SR-IOV CNI find the VF of a claim as they find one the
 * device plugin granted.
 */
package dev.tandem.dra.cni;
